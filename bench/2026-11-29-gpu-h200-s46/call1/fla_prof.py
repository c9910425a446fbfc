# Session 46 call 1: fla's forward + backward at B8 T4096 H16 K = V = 128 bf16, kernel by kernel (torch.profiler,
# CUDA activity, 5 iterations after warm-up and autotuning; inputs not rotated past the L2), and each op's total by
# triton's do_bench (median), for GDN (chunk_gated_delta_rule), scalar decay (chunk_simple_gla), per-key decay
# (chunk_gla) and KDA (chunk_kda). Inputs as bench/anchors/bwd_anchors.py builds them (per-key gates for gla / kda).
# fla's Hopper guard (#640) lifted as that script does: the backward's results are timings only.
import sys, json, torch, torch.nn.functional as F
from triton.testing import do_bench
from torch.profiler import profile, ProfilerActivity
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True
from fla.ops.simple_gla import chunk_simple_gla
from fla.ops.gated_delta_rule import chunk_gated_delta_rule
from fla.ops.gla import chunk_gla
from fla.ops.kda import chunk_kda
dev = 'cuda'
B, T, H, D = 8, 4096, 16, 128
torch.manual_seed(0)
q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16().requires_grad_(True)
k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16().requires_grad_(True)
v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16).requires_grad_(True)
g = (F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16).requires_grad_(True)
gk = (F.logsigmoid(torch.randn(B, T, H, D, device=dev)) / 16).requires_grad_(True)
beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid().requires_grad_(True)
dy = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
ops = {
    'gdn': lambda: chunk_gated_delta_rule(q, k, v, g, beta)[0],
    'simple_gla': lambda: chunk_simple_gla(q, k, v, g=g)[0],
    'gla': lambda: chunk_gla(q, k, v, gk)[0],
    'kda': lambda: chunk_kda(q, k, v, gk, beta)[0],
}
for name in (sys.argv[1:] or ops):
    f = ops[name]
    fb = lambda: f().backward(dy)
    row = {'op': name}
    try:
        for _ in range(3): fb()
        torch.cuda.synchronize()
        row['fwd_ms'] = do_bench(f, warmup=25, rep=200, return_mode='median')
        row['fwdbwd_ms'] = do_bench(fb, warmup=25, rep=200, return_mode='median')
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            for _ in range(5): fb()
            torch.cuda.synchronize()
        ks = {}
        for e in p.key_averages():
            if e.device_type.name == 'CUDA' or getattr(e, 'self_device_time_total', 0) > 0:
                t = getattr(e, 'self_device_time_total', None) or getattr(e, 'self_cuda_time_total', 0)
                if t > 0: ks[e.key] = (round(t / 5 / 1000, 4), e.count // 5)
        row['kernels_ms_per_iter'] = dict(sorted(ks.items(), key=lambda kv: -kv[1][0]))
    except Exception as ex:
        row['error'] = repr(ex)[:300]
    print(json.dumps(row), flush=True)
