#!/bin/bash
# session 25 call 2 (3477185: only u / du double-buffered, the second product's tiles issued as a chunk starts):
# GDN check (bf16); B1 T32768 H16 and B8 T4096 H16, the tree against 8307f8a's templates and against the tree
# with 512-thread narrow passes (tpl-nnt512: NNT = 512)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
timeout 150 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gdn.txt; grep FAIL $OUT/check-gdn.txt | head -3
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-8307f8a .gpu/tpl-nnt512"
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-8307f8a"
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml ".gpu/tpl-nnt512 .gpu/tpl-8307f8a tree"
