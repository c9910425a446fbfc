#!/bin/bash
# session 47 call 1 (tree = c0bbdff): session 46's next/run.sh (packed as its header says: scripts/gpu-pack.sh b12052c,
# then .gpu/tpl-hdregs = templates + next/hd-regs.diff), then hd-regs's quick check on the unseen u_gdn_k128v64, and
# ncu stage durations (no clock control) of the GDN bf16 forward at B8 T4096 H16 (plain) and of Mamba-2's at
# B2 T16384 H16 (the split forward, issue 5's missed shape).
bash bench/2026-11-29-gpu-h200-s46/next/run.sh
S=$PWD/.gpu/ssmc
U=bench/2026-11-29-gpu-h200-s46/unseen/u_gdn_k128v64.yaml
timeout 150 $S check --backend cuda --quick --templates .gpu/tpl-hdregs $U > $OUT/check-hdregs-u.txt 2>&1
echo "hdregs u_gdn_k128v64 rc=$? $(tail -1 $OUT/check-hdregs-u.txt)"
for job in "gated_deltanet 8 4096" "mamba2 2 16384"; do set -- $job
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 --rows fwd --reps 1 --B $2 --T $3 --H 16 dsl/families/$1.yaml > /tmp/$1.csv 2>/tmp/$1.err
  echo "$1 ncu rc=$?"
  python3 - /tmp/$1.csv <<'PY' | tee $OUT/durations-$1-B$2.txt
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi = h.index('Kernel Name'), h.index('Metric Value')
d = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split('_bf16_')[-1].split('(')[0]
    d.setdefault(k, []).append(float(r[vi].replace(',', '')) / 1e6)
for k, v in d.items(): print(f"{k:16s} n={len(v):3d} last={v[-1]:8.3f} ms median={sorted(v)[len(v)//2]:8.3f} ms")
PY
done
