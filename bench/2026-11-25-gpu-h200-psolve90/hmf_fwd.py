# hybrid-model-factory's GKA chunked Chebyshev forward (gka_chebyshev_gla, r = 30), timed as the anchor script
# ../shared/anchors/bench_hmf_gka.py does (do_bench medians, its inputs), for the same call as ssmc's rows; with
# `bwd` also its forward + backward. Run: PYTHONPATH=.fla:.hmf python3 hmf_fwd.py [bwd] B,T,H,D ...
import json, sys
import torch
import torch.nn.functional as F
from triton.testing import do_bench
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True
from hmf_cheb import gka_chebyshev_gla

dev = 'cuda'
def mk(B, T, H, D, grad=False):
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev).bfloat16()
    alpha = torch.rand(B, T, H, device=dev).bfloat16()
    g = F.logsigmoid(torch.randn(B, T, H, device=dev) + 4)
    ts = [q, k, v, alpha, g]
    if grad:
        for x in ts: x.requires_grad_(True)
    return ts
bwd = sys.argv[1:2] == ['bwd']
for shape in sys.argv[1 + bwd:]:
    B, T, H, D = map(int, shape.split(','))
    q, k, v, alpha, g = mk(B, T, H, D)
    row = dict(B=B, T=T, H=H, D=D)
    row['hmf_gka_fwd_ms'] = do_bench(lambda: gka_chebyshev_gla(q, k, v, alpha, g, g, D ** -0.5, num_iter=30),
                                     warmup=25, rep=200, return_mode='median')
    if bwd:
        qg, kg, vg, ag, gg = mk(B, T, H, D, grad=True)
        do = torch.randn_like(vg)
        def fb():
            o = gka_chebyshev_gla(qg, kg, vg, ag, gg, gg, D ** -0.5, num_iter=30)
            o = o[0] if isinstance(o, tuple) else o
            o.backward(do)
        row['hmf_gka_fwdbwd_ms'] = do_bench(fb, warmup=10, rep=100, return_mode='median')
    print(json.dumps(row), flush=True)
