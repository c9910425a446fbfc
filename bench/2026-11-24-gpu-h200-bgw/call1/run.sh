#!/bin/bash
# session 22 call 1 (98dc84f): bgrad's value loop on wgmma (BGW). GDN and Mamba-2 GPU checks; B8 T4096 H16 bf16
# benches, the tree against 6aade2b (session 21's final templates) in the same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in gated_deltanet mamba2; do
  timeout 150 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* d(g|k) " $OUT/check-$s.txt | awk '{print $3, $4, $6}' | head -4
done
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 1 "--B 8 --T 4096" dsl/families/mamba2.yaml "tree $base"
cd $OUT && tar czf call1.tgz *.txt
