#!/bin/bash
# session 23 call 2 (fc82b6b): fla's fwd+bwd anchors at B8 T4096 H16 (simple_gla, gated delta rule), then ncu stage
# times (locked clocks) of one bench run of Mamba-2 and GDN at B8 T4096 H16 bf16 (every variant's stages; the last
# launch of each stage name is printed)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
PYTHONPATH=.fla timeout 320 python3 bench/anchors/bwd_anchors.py 8x4096x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
for f in mamba2 gated_deltanet; do
timeout 120 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/ncu.csv 2>/dev/null
python3 - $OUT/ncu.csv <<'PY' | tee $OUT/stages-$f.txt
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('bf16_')[-1]; t.setdefault(n,[]).append(float(r[vi].replace(',',''))/1000)
print('ncu (locked clocks, us; last launch of each):', ' '.join(f"{n} {v[-1]:.0f}" for n,v in t.items()))
PY
done
rm -f $OUT/ncu.csv
