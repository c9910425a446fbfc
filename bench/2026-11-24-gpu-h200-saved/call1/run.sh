#!/bin/bash
# session 21 call 1: the forward kept for the backward (b062445) against ae6ff12 (.gpu/tpl-ae6ff12): GPU checks of
# the erase modules (bwd-saved rows after every forward variant), then GDN B8 T4096 H16 timings, tree and base
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
for s in gated_deltanet deltanet kda; do
  timeout 200 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* dg" $OUT/check-$s.txt | awk '{print $3, $4, $6}'
done
run() { # round shape spec
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml
run 2 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml
cd $OUT && tar czf call1.tgz *.txt
