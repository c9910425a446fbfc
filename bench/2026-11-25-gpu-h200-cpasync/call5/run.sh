#!/bin/bash
# session 25 call 5 (975ee40, the tree as call 4): the narrow passes' value tile, 16 columns (tree) against 8
# (tpl-nbv8: NBV = 8, the narrow grids twice the blocks, two blocks an SM), GDN bf16 B1 T32768 and B2 T16384 H16
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep -E "narrow|saved"
  done
}
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-nbv8"
run 1 "--B 2 --T 16384" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-nbv8"
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml ".gpu/tpl-nbv8 tree"
