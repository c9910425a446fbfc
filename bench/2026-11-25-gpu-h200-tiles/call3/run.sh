#!/bin/bash
# session 24 call 3 (76b961c: WU16 prep products, the tile remap). GDN B8 T4096 H16 (tree), B1 T32768
# H16 tree against ecf8c32's templates; DeltaNet check. fla's anchors not here: .fla with .gpu and the tracked
# tree exceed the 64 MiB a call carries (README: the anchors' records)
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
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree"
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree $base"
timeout 150 $S check --backend cuda --quick dsl/families/deltanet.yaml > $OUT/check-deltanet.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-deltanet.txt; grep FAIL $OUT/check-deltanet.txt | head -3
