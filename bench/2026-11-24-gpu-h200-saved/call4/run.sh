#!/bin/bash
# session 21 call 4: fla's fwd+bwd anchors at B8 T4096 H16 (call 3's ran out of its 150 s), then ssmc's GDN rows again
# in the same call (1e927fc)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
PYTHONPATH=.fla timeout 330 python3 bench/anchors/bwd_anchors.py 8x4096x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
timeout 120 $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | tee -a $OUT/bench.txt | awk '{print $2, $3, $4, $5, $6, $8}'
cd $OUT && tar czf call4.tgz *.txt *.err
