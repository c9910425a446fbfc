#!/bin/bash
# s55 call 6: the kept split forward at K = V = 64 H32 B1 T32768 (Mamba-2 shape: cuda_fused_k64.yaml), against
# 7b6898a's binary (ssmc-base) in the same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for b in ssmc ssmc-base ssmc ssmc-base; do
  timeout 50 .gpu/$b bench --backend cuda --dtype bf16 tests/fixtures/specs/cuda_fused_k64.yaml --B 1 --T 32768 --H 32 \
    --rows bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s|^|$b |" | tee -a $OUT/ab.txt
done
