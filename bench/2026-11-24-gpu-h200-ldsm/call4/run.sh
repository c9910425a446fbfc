#!/bin/bash
# session 20 call 4 (10e6a93's kernels): fla's B1 T32768 fwd+bwd anchors beside ssmc's B1 rows, and the
# backward's stages at B8 T4096 H16 (ncu gpu__time_duration; ncu locks clocks: about 1.3x the event times)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for s in mamba2 gated_deltanet; do
  timeout 100 $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | tee -a $OUT/ssmc.txt | awk '{print $2, $3, $4, $5, $8}'
done
PYTHONPATH=.fla timeout 280 python3 bench/anchors/bwd_anchors.py 1x32768x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
for s in mamba2 gated_deltanet; do
  timeout 100 ncu --metrics gpu__time_duration.sum -k regex:"_(fprep|fscan|fstate|bprep|bscan|bstate|bval|bgrad|brows|breduce)(_n)?$" --launch-count 40 --csv --print-units base $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/stages-$s.csv 2>&1
  echo "ncu $s rc=$?"; grep gpu__time $OUT/stages-$s.csv | awk -F'","' '{print $5, $NF}' | head -14
done
cd $OUT && tar czf call4.tgz *.txt *.err *.csv
