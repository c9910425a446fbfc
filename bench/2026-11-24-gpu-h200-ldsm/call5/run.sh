#!/bin/bash
# session 20 call 5: the recomputed forward of an erase module (fprep, fstate, fstate_n) with the forward's one
# tf32 product in bf16 modules (MM_FREC) instead of the fp32-accurate split; tree against 620bff6; checks first
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
for s in gated_deltanet deltanet kda; do
  timeout 120 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3; grep -E "bf16 edges +bwd(-narrow)? dg" $OUT/check-$s.txt | awk '{print $3, $4, $6}'
done
run() { # round shape spec
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (bwd|bwd-narrow|fwd\+bwd) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml
run 2 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml
cd $OUT && tar czf call5.tgz *.txt
