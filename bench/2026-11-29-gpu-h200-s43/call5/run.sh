#!/bin/bash
# session 43 call 5 (79d7d08): GKA r = 30 and Mamba-2 at B8 T4096 H16 bf16, forward and backward (GKA's backward not
# timed since session 42's changes; its code there was unchanged)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for f in gated_kalmanet mamba2; do
  timeout 120 $S bench --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
    grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s|^|$f |" | tee -a $OUT/bench.txt | awk '{print $1, $3, $5}'
done
