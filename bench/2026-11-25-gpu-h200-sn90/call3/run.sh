#!/bin/bash
# session 26 call 3 (the first product on both warpgroups: no wgmma serialized): checks GDN and KDA; GDN B1 T32768
# H16 the tree against 18d97b6 (mma.sync, session 25's last), two rounds, then forward + backward; fla in the same
# call; ncu stage times of the narrow state passes
D=bench/2026-11-25-gpu-h200-sn90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants [extra]
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 $5 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep -E "narrow|saved"
  done
}
for f in gated_deltanet kda; do
  timeout 150 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$?"; grep "^check:" $OUT/check-$f.txt; grep FAIL $OUT/check-$f.txt | head -3; grep "bf16 edges.*narrow" $OUT/check-$f.txt | awk '{print $4, $5, $7}' | head -4
done
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-18d97b6" --no-bwd
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml ".gpu/tpl-18d97b6 tree" --no-bwd
run 3 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-18d97b6"
PYTHONPATH=.fla timeout 150 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 1,32768,16,128 2>&1 | tee $OUT/fla.txt | tail -1
timeout 200 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 > $OUT/ncu.csv 2>/dev/null
python3 - $OUT/ncu.csv <<'PY' | tee $OUT/stages-B1.txt
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('bf16_')[-1]; t.setdefault(n,[]).append(float(r[vi].replace(',',''))/1000)
print('ncu (locked clocks, us; last launch of each):', ' '.join(f"{n} {v[-1]:.0f}" for n,v in t.items()))
PY
rm -f $OUT/ncu.csv
