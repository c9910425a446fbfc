#!/bin/bash
# session 37 call 5 (04eea7c): is HD's pick at V = 64 from 24% of the SMs right for long single sequences too? GDN
# K = V = 64 H32 at B1 T32768 and B1 / B2 T4096: the staged forward's rows (wide and narrow) against fused90's
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
for sh in "--B 1 --T 32768 --H 32" "--B 1 --T 32768 --H 16" "--B 1 --T 4096 --H 32" "--B 2 --T 4096 --H 32"; do
  timeout 90 $S bench --backend cuda --dtype bf16 --no-bwd $G64 $sh --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/$(echo $sh | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $3, $7}'
done
