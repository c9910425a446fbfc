#!/bin/bash
# session 19 call 7 (724e82e): the final kernels' headline rows (Mamba-2, GDN at B8 T4096 and B1 T32768 H16)
# and fla's fwd+bwd anchors in the same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in mamba2 gated_deltanet; do
  for sh in "--B 8 --T 4096" "--B 1 --T 32768"; do
    timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml $sh --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | tee -a $OUT/ssmc.txt | awk '{print $2, $3, $4, $5, $8}'
  done
done
PYTHONPATH=.fla timeout 360 python3 bench/anchors/bwd_anchors.py 8x4096x16x128 1x32768x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
cd $OUT && tar czf call7.tgz *.txt *.err
