# fla's chunk_gated_delta_rule forward, kernel by kernel (torch.profiler, CUDA activity; mean over the timed runs),
# on the inputs of ../2026-11-25-gpu-h200-cpasync/fla_gdn.py. Run: PYTHONPATH=.fla python3 fla_gdn_stages.py B,T,H,D ...
import collections, sys
import torch
import torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity
from fla.ops.gated_delta_rule import chunk_gated_delta_rule

dev = 'cuda'
for shape in sys.argv[1:]:
    B, T, H, D = map(int, shape.split(','))
    q = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, D, device=dev), dim=-1).bfloat16()
    v = torch.randn(B, T, H, D, device=dev, dtype=torch.bfloat16)
    g = F.logsigmoid(torch.randn(B, T, H, device=dev)) / 16
    beta = torch.rand(B, T, H, device=dev, dtype=torch.bfloat16).sigmoid()
    run = lambda: chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True)
    for _ in range(10): run()
    torch.cuda.synchronize()
    n = 20
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n): run()
        torch.cuda.synchronize()
    t = collections.OrderedDict()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            t[e.name] = t.get(e.name, 0.0) + e.device_time_total if hasattr(e, 'device_time_total') else e.cuda_time_total
    tot = sum(t.values()) / n
    print(f'{shape}: total {tot:.1f} us per call')
    for k_, v_ in t.items():
        print(f'  {v_ / n:8.1f} us  {k_[:110]}')
