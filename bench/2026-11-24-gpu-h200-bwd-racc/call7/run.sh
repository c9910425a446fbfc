#!/bin/bash
# session 16 call 7: the final tree (8bed25f) checked on the families call 2 did not check; racecheck on GDN
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in dsl/families/deltanet.yaml dsl/families/kda.yaml dsl/families/gated_kalmanet.yaml examples/my_ssm.yaml; do
  timeout 120 $S check --backend cuda --quick $f > $OUT/check-$(basename $f .yaml).txt 2>&1
  echo "check $f: $(tail -n 1 $OUT/check-$(basename $f .yaml).txt)"; grep -E "FAIL" $OUT/check-$(basename $f .yaml).txt | head -5
done
timeout 200 compute-sanitizer --tool racecheck $S check --backend cuda --quick --dtype bf16 dsl/families/gated_deltanet.yaml > $OUT/race-gdn.txt 2>&1
echo "racecheck gated_deltanet: $(grep -E 'RACECHECK SUMMARY|comparisons' $OUT/race-gdn.txt | tail -2 | tr '\n' '|')"
