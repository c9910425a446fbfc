# fla's chunk_gated_delta_rule and chunk_simple_gla forward+backward at two shapes, with the inputs and method of
# ../shared/anchors/bench_fla.py (do_bench median, warm-up 25, 200 ms), for a same-call comparison with ssmc.
import json, os, sys
import torch
import torch.nn.functional as F
from triton.testing import do_bench
from fla.ops.gated_delta_rule import chunk_gated_delta_rule
from fla.ops.simple_gla import chunk_simple_gla
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True  # as the anchor script: lift fla's Hopper guard (#640) to time its backward

dev = 'cuda'
def inputs(Bsz, T, H, K, V, dtype=torch.bfloat16):
    q = F.normalize(torch.randn(Bsz, T, H, K, device=dev, dtype=torch.float32), dim=-1).to(dtype)
    k = F.normalize(torch.randn(Bsz, T, H, K, device=dev, dtype=torch.float32), dim=-1).to(dtype)
    v = torch.randn(Bsz, T, H, V, device=dev, dtype=dtype)
    g = F.logsigmoid(torch.randn(Bsz, T, H, device=dev, dtype=torch.float32)) / 16
    beta = torch.rand(Bsz, T, H, device=dev, dtype=dtype).sigmoid()
    for x in (q, k, v, g, beta): x.requires_grad_(True)
    return q, k, v, g, beta
for (Bsz, T, H, D) in [(8, 4096, 16, 128), (1, 32768, 16, 128)]:
    q, k, v, g, beta = inputs(Bsz, T, H, D, D)
    do = torch.randn_like(v)
    def fb_gla():
        o, _ = chunk_simple_gla(q, k, v, g=g)
        o.backward(do)
    def fb_gdn():
        o, _ = chunk_gated_delta_rule(q, k, v, g, beta)
        o.backward(do)
    row = dict(B=Bsz, T=T, H=H, D=D, device=torch.cuda.get_device_name())
    row['sgla_fwdbwd_ms'] = do_bench(fb_gla, warmup=25, rep=200, return_mode='median')
    print(json.dumps(row), flush=True)
    row['gdn_fwdbwd_ms'] = do_bench(fb_gdn, warmup=25, rep=200, return_mode='median')
    print(json.dumps(row), flush=True)
