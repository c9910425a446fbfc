# fla's chunk_gated_delta_rule (forward; forward+backward) at the issue shapes, timed as the anchor script
# ../shared/anchors/bench_fla.py does (do_bench medians; same inputs), for the same call as ssmc's rows.
# Run: PYTHONPATH=.fla python3 fla_gdn.py B,T,H,D ...
import json, sys
import torch
import torch.nn.functional as F
from triton.testing import do_bench
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True  # the anchor script's lift of fla's Hopper backward guard (#640): timing only
from fla.ops.gated_delta_rule import chunk_gated_delta_rule

dev = 'cuda'
def inputs(B, T, H, D, grad=False):
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid()
    ts = [q, k, v, g, beta]
    if grad:
        for x in ts: x.requires_grad_(True)
    return ts
for shape in sys.argv[1:]:
    B, T, H, D = map(int, shape.split(','))
    q, k, v, g, beta = inputs(B, T, H, D)
    fwd = do_bench(lambda: chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True), warmup=25, rep=200, return_mode='median')
    qg, kg, vg, gg, bg = inputs(B, T, H, D, grad=True)
    do = torch.randn_like(vg)
    def fb():
        o, _ = chunk_gated_delta_rule(qg, kg, vg, gg, bg)
        o.backward(do)
    fwdbwd = do_bench(fb, warmup=25, rep=200, return_mode='median')
    print(json.dumps(dict(B=B, T=T, H=H, D=D, gdn_fwd_ms=fwd, gdn_fwdbwd_ms=fwdbwd)), flush=True)
