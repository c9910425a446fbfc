# fla's chunk_gated_delta_rule, the forward alone, timed as ../shared/anchors/bench_fla.py times it (do_bench
# medians; the inputs of bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py), for a call too short for its
# forward+backward's compiles. Run: PYTHONPATH=.fla python3 fla_gdn_fwd.py B,T,H,D ...
import json, sys
import torch
import torch.nn.functional as F
from triton.testing import do_bench
from fla.ops.gated_delta_rule import chunk_gated_delta_rule

dev = 'cuda'
for shape in sys.argv[1:]:
    B, T, H, D = map(int, shape.split(','))
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid()
    fwd = do_bench(lambda: chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True), warmup=25, rep=200,
                   return_mode='median')
    print(json.dumps(dict(B=B, T=T, H=H, D=D, gdn_fwd_ms=fwd)), flush=True)
