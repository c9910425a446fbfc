#!/bin/bash
# session 20 call 3 (10e6a93's kernels): the headline rows (Mamba-2, GDN at B8 T4096 and B1 T32768 H16),
# fla's fwd+bwd anchors in the same call, and the stall reasons of GDN's bgrad (ncu WarpStateStats)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in mamba2 gated_deltanet; do
  for sh in "--B 8 --T 4096" "--B 1 --T 32768"; do
    timeout 100 $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml $sh --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | tee -a $OUT/ssmc.txt | awk '{print $2, $3, $4, $5, $8}'
  done
done
PYTHONPATH=.fla timeout 300 python3 bench/anchors/bwd_anchors.py 8x4096x16x128 1x32768x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
timeout 90 ncu --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" -k regex:"_bgrad$" --launch-count 1 --csv --print-units base $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/gbgrad-stalls.txt 2>&1
echo "ncu rc=$?"; grep -E "stalled" $OUT/gbgrad-stalls.txt | awk -F'","' '{print $(NF-2), $NF}' | sort -t, -k2 | tail -25
cd $OUT && tar czf call3.tgz *.txt *.err
