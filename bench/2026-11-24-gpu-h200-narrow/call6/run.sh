#!/bin/bash
# session 17 call 6 (the final tree): racecheck of the narrow stages; GDN and DeltaNet B1 T32768 H16 (the runtime's picks: narrow), fla's fwd and fwd+bwd anchors at that shape in the same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 200 compute-sanitizer --tool racecheck $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/gated_deltanet.yaml --B 1 --T 300 --H 2 > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|hazard' $OUT/racecheck.txt | head -3)"
for f in gated_deltanet deltanet; do
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 5 dsl/families/$f.yaml --B 1 --T 32768 --H 16 > $OUT/b1-$f.txt 2>&1
  echo "$f B1 T32768: $(grep -E ' (fwd\S*|bwd\S*|fwd\+bwd) ' $OUT/b1-$f.txt | awk '{print $2, $6, $7}' | tr '\n' ' ')"
done
PYTHONPATH=.fla timeout 200 python3 bench/anchors/bwd_anchors.py 1x32768x16x128 > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors-bwd rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
PYTHONPATH=.fla timeout 150 python3 bench/anchors/fwd_anchors.py 1x32768x16x128 > $OUT/anchors-fwd.txt 2>$OUT/anchors-fwd.err
echo "anchors-fwd rc=$?"; cat $OUT/anchors-fwd.txt; tail -2 $OUT/anchors-fwd.err
