# ncu_durations.py CSV: per-stage durations from `ncu --metrics gpu__time_duration.sum --print-units base --csv`
# of an ssmc bench run (a stage: the kernel name after its module's dtype, e.g. fused90_keep, bprep): launches,
# the last one and the median, in ms. The GPU records' run.sh scripts (bench/*/callN/) call it from session 47's
# next/ on; earlier ones carry the same lines inline.
import csv, sys, collections

rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]
ki, vi = h.index('Kernel Name'), h.index('Metric Value')
d = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split('_bf16_')[-1].split('_f32_')[-1].split('(')[0]
    d.setdefault(k, []).append(float(r[vi].replace(',', '')) / 1e6)
for k, v in d.items():
    print(f"{k:16s} n={len(v):3d} last={v[-1]:8.3f} ms median={sorted(v)[len(v) // 2]:8.3f} ms")
