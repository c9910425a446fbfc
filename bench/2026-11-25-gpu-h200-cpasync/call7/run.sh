#!/bin/bash
# session 25 call 7 (975ee40's templates, --templates .gpu/tpl-975ee40: the state passes as landed): ncu stage
# times (locked clocks) of one bench run of GDN bf16 at B1 T32768 H16 and B8 T4096 H16 (every variant's stages;
# the last launch of each stage name), the breakdown for the next session
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for fs in "gated_deltanet 1 32768" "gated_deltanet 8 4096"; do
set -- $fs
timeout 200 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --templates .gpu/tpl-975ee40 --decode 1 --reps 1 dsl/families/$1.yaml --B $2 --T $3 --H 16 > $OUT/ncu.csv 2>/dev/null
python3 - $OUT/ncu.csv <<'PY' | tee $OUT/stages-$1-B$2.txt
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
