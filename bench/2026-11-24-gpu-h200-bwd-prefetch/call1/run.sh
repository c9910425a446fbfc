#!/bin/bash
# session 15 call 1: register-prefetched tiles in bprep/bval/bgrad/bstate vs ce578a8; checks; per-stage ncu
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-ce578a8";; tree) echo "";; esac; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in mamba2 gated_deltanet gla deltanet; do
  timeout 200 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$f.txt)"
done
for rep in 1 2; do
  for f in mamba2 gated_deltanet; do
    for v in base tree; do
      timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v-$rep.txt 2>&1
      echo "$f B8 $v $rep: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/b8-$f-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
    done
  done
done
for f in mamba2 gated_deltanet; do
timeout 120 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/ncu.csv 2>/dev/null
python3 - $OUT/ncu.csv <<'PY' | tee $OUT/stages-$f.txt
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('_')[-1]; t.setdefault(n,[]).append(float(r[vi].replace(',',''))/1000)
print('ncu tree (locked clocks, us):', ' '.join(f"{n} {v[-1]:.0f}" for n,v in t.items() if n not in ('empty','decode','large','mma')))
PY
done
rm -f $OUT/ncu.csv
