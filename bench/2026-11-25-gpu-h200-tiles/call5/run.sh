#!/bin/bash
# session 24 call 5 (the state passes' L2 prefetch two chunks ahead): GDN B1 T32768 and B8 T4096 H16 bf16 benches,
# the tree against 76b961c's templates in the same call; GDN check
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree $base"
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree $base"
timeout 150 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gated_deltanet.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gated_deltanet.txt; grep FAIL $OUT/check-gated_deltanet.txt | head -3
