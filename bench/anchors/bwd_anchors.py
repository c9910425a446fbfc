# Forward+backward anchors for issue 8's rows, timed in the same call as ssmc's (run on the GPU machine with
# fla's source on PYTHONPATH, e.g. PYTHONPATH=.fla; see ../shared/anchors/README.md): fla's chunk_simple_gla
# (scalar decay, the Mamba-2 anchor) and chunk_gated_delta_rule, y.backward(dy) after the forward, bf16
# inputs built as ../shared/anchors/bench_fla.py builds them; triton's do_bench, median. fla's Hopper guard
# (#640) is lifted as that script does, to time its backward at all. One JSON row a shape, flushed.
import json, sys, torch, torch.nn.functional as F
from triton.testing import do_bench
from fla.ops.simple_gla import chunk_simple_gla
from fla.ops.gated_delta_rule import chunk_gated_delta_rule
import fla.ops.common.chunk_o as _co
_co.TRITON_ABOVE_3_7_1 = True
dev = 'cuda'
ms = lambda f: do_bench(f, warmup=25, rep=200, return_mode='median')
# the shapes to time: every one, or those named on the command line as BxTxHxD (e.g. 1x32768x16x128)
SHAPES = [s for s in [(8, 4096, 16, 128), (1, 32768, 16, 128), (8, 4096, 32, 64)] if len(sys.argv) < 2 or 'x'.join(map(str, s)) in sys.argv[1:]]
for (B, T, H, D) in SHAPES:
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16().requires_grad_(True)
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16().requires_grad_(True)
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16).requires_grad_(True)
    g = (F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16).requires_grad_(True)
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid().requires_grad_(True)
    dy = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    def fb_gla():
        o, _ = chunk_simple_gla(q, k, v, g=g)
        o.backward(dy)
    def fb_gdn():
        o, _ = chunk_gated_delta_rule(q, k, v, g, beta)
        o.backward(dy)
    row = dict(B=B, T=T, H=H, D=D)
    for name, f in (('fla_simple_gla_fwdbwd_ms', fb_gla), ('fla_gdn_fwdbwd_ms', fb_gdn)):
        try:
            row[name] = ms(f)
        except Exception as e:  # the row says why
            row[name + '_error'] = str(e)[:200]
    print(json.dumps(row), flush=True)
