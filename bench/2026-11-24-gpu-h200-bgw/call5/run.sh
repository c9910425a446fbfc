#!/bin/bash
# session 22 call 5 (41a15c1): the headline rows with fla's anchors in the same call: fla's fwd+bwd at B8 T4096 H16
# (chunk_gated_delta_rule, chunk_simple_gla), ssmc's GDN and Mamba-2 rows at B8 (bf16)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
PYTHONPATH=.fla timeout 330 python3 bench/anchors/bwd_anchors.py 8x4096x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
for s in gated_deltanet mamba2; do
  timeout 100 $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | tee -a $OUT/bench.txt | awk '{print $2, $3, $4, $5, $6, $8}'
done
