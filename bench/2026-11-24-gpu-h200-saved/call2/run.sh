#!/bin/bash
# session 21 call 2 (f011863): fused90 keeping u from ut (c.f. call 1: from its accumulators, spilled); tree against ae6ff12:
# GDN GPU check, GDN B8 A/B (fused90 without bwd_save must match the base), B1 T32768, DeltaNet and KDA B8 (tree)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
timeout 200 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gated_deltanet.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gated_deltanet.txt; grep FAIL $OUT/check-gated_deltanet.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* dg" $OUT/check-gated_deltanet.txt | awk '{print $3, $4, $6}'
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $5, $6, $8}'
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 2 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml tree
run 1 "--B 8 --T 4096" dsl/families/deltanet.yaml tree
run 1 "--B 8 --T 4096" dsl/families/kda.yaml tree
cd $OUT && tar czf call2.tgz *.txt
