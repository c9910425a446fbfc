# Anchors for the GDN and scalar-decay rows (run on the GPU machine with fla on PYTHONPATH, e.g. PYTHONPATH=.fla): fla's chunk_gated_delta_rule and chunk_simple_gla forwards,
# inputs as ../shared/anchors/bench_fla.py builds them (timed with triton's do_bench, median).
import json, os, torch, torch.nn.functional as F
from triton.testing import do_bench
from fla.ops.gated_delta_rule import chunk_gated_delta_rule
dev = 'cuda'
for (B, T, H, D) in [(8, 4096, 16, 128), (1, 32768, 16, 128), (8, 4096, 32, 64)]:
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid()
    ms = do_bench(lambda: chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True), warmup=25, rep=200, return_mode='median')
    print(json.dumps(dict(op='fla_chunk_gated_delta_rule_fwd', B=B, T=T, H=H, D=D, ms=ms)), flush=True)
# scalar decay (the Mamba-2 rows): fla's chunk_simple_gla forward on the same shapes
from fla.ops.simple_gla import chunk_simple_gla
for (B, T, H, D) in [(8, 4096, 16, 128), (1, 32768, 16, 128)]:
    q = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    ms = do_bench(lambda: chunk_simple_gla(q, k, v, g, output_final_state=True), warmup=25, rep=200, return_mode='median')
    print(json.dumps(dict(op='fla_chunk_simple_gla_fwd', B=B, T=T, H=H, D=D, ms=ms)), flush=True)
