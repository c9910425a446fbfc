# fla's chunk_simple_gla and chunk_gated_delta_rule, forward + backward, B8 T4096 H16 K = V = 128 bf16 (do_bench
# medians after warm-up and Triton's autotuning; inputs as ../shared/anchors/bench_fla.py makes them).
import json
import torch
import torch.nn.functional as F
from triton.testing import do_bench
from fla.ops.gated_delta_rule import chunk_gated_delta_rule
from fla.ops.simple_gla import chunk_simple_gla
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True  # fla's Hopper guard (#640) lifted to time its backward, as the anchor script does
dev, B, T, H, D = 'cuda', 8, 4096, 16, 128
def ins():
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16().requires_grad_(True)
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16().requires_grad_(True)
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16).requires_grad_(True)
    g = (F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16).requires_grad_(True)
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid().requires_grad_(True)
    return q, k, v, g, beta
q, k, v, g, beta = ins()
do = torch.randn_like(v)
def fb_gla():
    o, _ = chunk_simple_gla(q, k, v, g=g)
    o.backward(do)
def fb_gdn():
    o, _ = chunk_gated_delta_rule(q, k, v, g, beta)
    o.backward(do)
r = {}
for name, f in [('sgla_fwdbwd_ms', fb_gla), ('gdn_fwdbwd_ms', fb_gdn)]:
    f(); torch.cuda.synchronize()
    r[name] = do_bench(f, warmup=25, rep=200, return_mode='median')
    print(json.dumps(r), flush=True)
