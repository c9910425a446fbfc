#!/bin/bash
# call 2: fused90 with an erase (GDN, DeltaNet: after prep) on the H200: checks, racecheck, bench
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 240 $S check --backend cuda --no-bwd dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1
echo "check gdn: $(tail -1 $OUT/check-gdn.txt)"; grep -E "FAIL|error" $OUT/check-gdn.txt | head -5
grep "fused90 y" $OUT/check-gdn.txt | head -12
timeout 100 $S check --backend cuda --quick --no-bwd dsl/families/deltanet.yaml > $OUT/check-deltanet.txt 2>&1
echo "check deltanet: $(tail -1 $OUT/check-deltanet.txt)"; grep -E "FAIL|error" $OUT/check-deltanet.txt | head -5
for B in 8 16 4 2 1; do
  T=4096; [ $B = 1 ] && T=32768
  timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 dsl/families/gated_deltanet.yaml --B $B --T $T --H 16 > $OUT/bench-gdn-B$B.txt 2>&1
  echo "gdn B$B T$T: $(grep -E ' fwd' $OUT/bench-gdn-B$B.txt | tr -s ' ' | cut -c1-200 | tr '\n' '|')"
done
timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 dsl/families/deltanet.yaml --B 8 --T 4096 --H 16 > $OUT/bench-deltanet-B8.txt 2>&1
echo "deltanet B8: $(grep -E ' fwd' $OUT/bench-deltanet-B8.txt | tr -s ' ' | cut -c1-200 | tr '\n' '|')"
timeout 150 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd dsl/families/gated_deltanet.yaml > $OUT/race-gdn.txt 2>&1
echo "racecheck gdn: $(grep -E 'RACECHECK SUMMARY|comparisons' $OUT/race-gdn.txt | tail -2 | tr '\n' '|')"
