#!/bin/bash
# session 22 call 4: bgrad's wgmma loop in the producer form (a fourth warpgroup loads, three buffers, named
# barriers): GDN and DeltaNet GPU checks; GDN B8 T4096 H16 bf16 against 6aade2b; GDN B1 T32768; DeltaNet B8
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
for s in gated_deltanet deltanet; do
  timeout 150 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* d(g|k) " $OUT/check-$s.txt | awk '{print $3, $4, $6}' | head -4
done
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep bwd
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree"
run 1 "--B 8 --T 4096" dsl/families/deltanet.yaml "tree"
