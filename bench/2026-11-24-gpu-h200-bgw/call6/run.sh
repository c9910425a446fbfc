#!/bin/bash
# session 22 call 6: bgrad's producer form with Z_L in a register set of its own (no spill with two sets) and the
# consumers keeping one wgmma group in flight (wg_wait1): GDN GPU check; GDN B8 T4096 and B1 T32768 H16 bf16,
# the tree against 41a15c1 (call 4's producer form) in the same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
timeout 150 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gated_deltanet.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gated_deltanet.txt; grep FAIL $OUT/check-gated_deltanet.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* dg " $OUT/check-gated_deltanet.txt | awk '{print $3, $4, $6}' | head -2
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep bwd
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 2 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree"
