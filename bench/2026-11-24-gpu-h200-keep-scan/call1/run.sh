#!/bin/bash
# session 23 call 1 (fc82b6b): the forward kept without an erase (Mamba-2, GLA bf16). GPU checks of Mamba-2 and GLA
# (bwd-saved rows after every forward variant), Mamba-2 benches at B8 T4096 and B1 T32768 H16 bf16 (bwd recomputing
# and bwd-saved in the same run)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in mamba2 gla; do
  timeout 150 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3; grep -E "bf16 edges +bwd[-a-z0-9]* dg " $OUT/check-$s.txt | awk '{print $3, $4, $6}' | head -6
done
for shape in "--B 8 --T 4096" "--B 1 --T 32768"; do
  timeout 100 $S bench --backend cuda --dtype bf16 dsl/families/mamba2.yaml $shape --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | tee -a $OUT/bench.txt | awk '{print $2, $3, $4, $5, $6, $8}'
done
PYTHONPATH=.fla timeout 240 python3 bench/anchors/bwd_anchors.py 8x4096x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
