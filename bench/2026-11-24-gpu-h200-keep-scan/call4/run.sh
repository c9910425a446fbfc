#!/bin/bash
# session 23 call 4 (c20e4ed): unit_lower_inverse four threads a column. GPU checks of GDN and DeltaNet; GDN
# B8 T4096 H16 bf16 benches, the tree against fc82b6b's templates in the same call (two rounds); GDN B1
# T32768; ncu stage times of GDN's prep / bval (tree)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in gated_deltanet deltanet; do
  timeout 150 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* d(g|gk) " $OUT/check-$s.txt | awk '{print $3, $4, $6}' | head -2
done
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
for r in 1 2; do run $r "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"; done
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree"
timeout 120 ncu -k regex:'_(prep|bval)$' --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 > $OUT/ncu.csv 2>/dev/null
grep -E "_prep\"|_bval\"" $OUT/ncu.csv | awk -F'","' '{print $5, $(NF)}' | sort | uniq -c | head; rm -f $OUT/ncu.csv
