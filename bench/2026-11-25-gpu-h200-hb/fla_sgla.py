# fla's chunk_simple_gla (Mamba-2-style scalar decay; forward, and forward+backward) at the issue shapes, timed as
# the anchor script ../shared/anchors/bench_fla.py does (do_bench medians, its inputs), for the same call as
# ssmc's rows. Run: PYTHONPATH=.fla python3 fla_sgla.py [fwd] B,T,H,D ... (fwd: the forward alone)
import json, sys
import torch
import torch.nn.functional as F
from triton.testing import do_bench
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True  # the anchor script's lift of fla's Hopper backward guard (#640): timing only
from fla.ops.simple_gla import chunk_simple_gla

dev = 'cuda'
def inputs(B, T, H, D, grad=False):
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    ts = [q, k, v, g]
    if grad:
        for x in ts: x.requires_grad_(True)
    return ts
fwd_only = sys.argv[1:2] == ['fwd']
for shape in sys.argv[1 + fwd_only:]:
    B, T, H, D = map(int, shape.split(','))
    q, k, v, g = inputs(B, T, H, D)
    fwd = do_bench(lambda: chunk_simple_gla(q, k, v, g=g, output_final_state=True), warmup=25, rep=200, return_mode='median')
    if fwd_only:
        print(json.dumps(dict(B=B, T=T, H=H, D=D, sgla_fwd_ms=fwd)), flush=True)
        continue
    qg, kg, vg, gg = inputs(B, T, H, D, grad=True)
    do = torch.randn_like(vg)
    def fb():
        o, _ = chunk_simple_gla(qg, kg, vg, g=gg)
        o.backward(do)
    fwdbwd = do_bench(fb, warmup=25, rep=200, return_mode='median')
    print(json.dumps(dict(B=B, T=T, H=H, D=D, sgla_fwd_ms=fwd, sgla_fwdbwd_ms=fwdbwd)), flush=True)
