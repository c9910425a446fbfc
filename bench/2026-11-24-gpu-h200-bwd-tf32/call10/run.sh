#!/bin/bash
# call 10: issue 8's anchors (fla fwd+bwd) in the same call as ssmc's fwd+bwd (main f2093d4's code)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in mamba2 gated_deltanet; do
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f.txt 2>&1
  echo "$f B8: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/b8-$f.txt | awk '{print $2, $6}' | tr '\n' ' ')"
done
PYTHONPATH=.fla timeout 420 python3 bench/anchors/bwd_anchors.py > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -3 $OUT/anchors-bwd.err
