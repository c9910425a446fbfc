#!/bin/bash
# call 4: backward variants, bf16: base (HEAD's templates), z (bgrad's Z_L.dZ_L a warp a row), zb (z + bgrad and
# bprep 256 threads two blocks an SM), tree (zb + one tf32 product for bf16 modules without an erase)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-base";; z|zb) echo "--templates .gpu/tpl-$1";; tree) echo "";; esac; }
for rep in 1 2; do
  for f in mamba2 gated_deltanet gla; do
    for v in base z zb tree; do
      timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v-$rep.txt 2>&1
      echo "$f B8 $v $rep: $(grep -E ' (bwd|fwd\+bwd)' $OUT/b8-$f-$v-$rep.txt | awk '{print $2, $5}' | tr '\n' ' ')"
    done
  done
done
for v in base tree; do
  timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 > $OUT/b1-mamba2-$v.txt 2>&1
  echo "mamba2 B1 $v: $(grep -E ' (bwd|fwd\+bwd)' $OUT/b1-mamba2-$v.txt | awk '{print $2, $5}' | tr '\n' ' ')"
done
for f in mamba2 gated_deltanet; do
timeout 150 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/ncu.csv 2>/dev/null
python3 - $OUT/ncu.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('_')[-1]; t.setdefault(n,[]).append(float(r[vi].replace(',',''))/1000)
print('ncu tree:', ' '.join(f"{n} {v[-1]:.0f}" for n,v in t.items() if n not in ('empty','decode','large','mma')))
PY
done
rm -f $OUT/ncu.csv
for f in mamba2 gla gated_deltanet; do
  timeout 200 $S check --backend cuda dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$f.txt)"; grep -E "FAIL" $OUT/check-$f.txt | head -5
  grep bwd $OUT/check-$f.txt | grep bf16 | sort -k6 -g | tail -2
done
timeout 150 compute-sanitizer --tool racecheck $S check --backend cuda --quick dsl/families/mamba2.yaml > $OUT/race-mamba2.txt 2>&1
echo "racecheck mamba2: $(grep -E 'RACECHECK SUMMARY|comparisons' $OUT/race-mamba2.txt | tail -2 | tr '\n' '|')"
