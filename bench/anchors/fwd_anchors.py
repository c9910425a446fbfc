# Forward anchors for issue 5's chunkwise rows, timed in the same call as ssmc's (run on the GPU machine with
# fla and mamba_ssm's Triton ops on PYTHONPATH, e.g. PYTHONPATH=.fla:.mamba; see ../shared/anchors/README.md):
# fla's chunk_simple_gla and chunk_gated_delta_rule, and state-spaces/mamba's mamba_chunk_scan_combined
# (G = H and 1, chunk 64 and 256), bf16 inputs as ../shared/anchors builds them; triton's do_bench, median.
import json, sys, torch, torch.nn.functional as F
from triton.testing import do_bench
from fla.ops.simple_gla import chunk_simple_gla
from fla.ops.gated_delta_rule import chunk_gated_delta_rule
dev = 'cuda'
try:
    from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
except Exception as e:  # the row says why, the others still run
    mamba_chunk_scan_combined = None
    print(json.dumps(dict(op='mamba_import', error=str(e))), flush=True)
ms = lambda f: do_bench(f, warmup=25, rep=200, return_mode='median')
# the shapes to time: every one, or those named on the command line as BxTxHxD (e.g. 1x32768x16x128)
SHAPES = [s for s in [(8, 4096, 16, 128), (16, 4096, 16, 128), (4, 4096, 16, 128), (1, 32768, 16, 128), (8, 4096, 32, 64)] if len(sys.argv) < 2 or 'x'.join(map(str, s)) in sys.argv[1:]]
for (B, T, H, D) in SHAPES:
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid()
    row = dict(B=B, T=T, H=H, D=D)
    row['fla_simple_gla_ms'] = ms(lambda: chunk_simple_gla(q, k, v, g, output_final_state=True))
    row['fla_gdn_ms'] = ms(lambda: chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True))
    if mamba_chunk_scan_combined:
        x = v
        dt = F.softplus(torch.randn(B, T, H, device=dev) - 2.0)
        A = -torch.rand(H, device=dev) * 4.0 - 0.5
        for G in (H, 1):
            Bm = torch.randn(B, T, G, D, device=dev, dtype=torch.bfloat16) / D**0.5
            Cm = torch.randn(B, T, G, D, device=dev, dtype=torch.bfloat16) / D**0.5
            for cs in (64, 256):
                row[f'mamba_G{G}_c{cs}_ms'] = ms(lambda: mamba_chunk_scan_combined(x, dt, A, Bm, Cm, cs, return_final_states=True))
    print(json.dumps(row), flush=True)
    del q, k, v, g, beta
    torch.cuda.empty_cache()
