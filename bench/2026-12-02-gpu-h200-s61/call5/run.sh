#!/bin/bash
# s61 call 5: the landed tree (72b938a) and fla (github.com/fla-org/flash-linear-attention bc3b101d, package carried as
# .fla) in the same call: GDN and Mamba-2 / simple_gla fwd+bwd at B8 T4096 H16 and B1 T32768 H16, bf16, K = V = 128.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 mamba2" "8 4096 gated_deltanet" "1 32768 mamba2" "1 32768 gated_deltanet"; do set -- $sh
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
    --rows fwd+bwd-saved --reps 5 2>&1 | grep -E " fwd\+bwd-saved|rror" | tee -a $OUT/ours.txt
done
PYTHONPATH=.fla timeout 200 python3 bench/2026-12-02-gpu-h200-s61/call5/fla_min.py 2>&1 | tail -20 | tee $OUT/fla.txt
