#!/bin/bash
# call 1: per-stage times of the CUDA backward (ncu gpu__time_duration), B8 T4096 H16 bf16 (main 2565e1c)
# (the summary printer's first form failed on ncu's thousands separators; stages-*.txt were made from the csv here)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in mamba2 gated_deltanet gla; do
  $S bench --backend cuda --dtype bf16 --decode 1 --reps 3 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > /dev/null 2>&1  # warm the cache
  timeout 200 ncu --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size,launch__block_size --csv \
    $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-$f.csv 2>$OUT/ncu-$f.err
done
