#!/bin/bash
# session 37 call 6 (the binary of call 5): HD's pick at V = 128 (from 24% of the SMs) against the narrow staged forward: GDN
# K = V = 128 H16 at B2 and B3 T4096 and B2 T16384 (wide, narrow and fused90 rows)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
G=dsl/families/gated_deltanet.yaml
for sh in "--B 2 --T 4096 --H 16" "--B 3 --T 4096 --H 16" "--B 2 --T 16384 --H 16"; do
  timeout 90 $S bench --backend cuda --dtype bf16 --no-bwd $G $sh --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/$(echo $sh | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $3, $7}'
done
