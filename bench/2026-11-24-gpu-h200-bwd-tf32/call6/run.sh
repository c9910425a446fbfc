#!/bin/bash
# call 6: the tree's checks (fp64 oracle, full shapes with T=4096, backward rows) and racecheck
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in mamba2 gla gated_deltanet; do
  timeout 150 $S check --backend cuda dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$f.txt)"; grep -E "FAIL" $OUT/check-$f.txt | head -5
  grep bwd $OUT/check-$f.txt | grep bf16 | sort -k6 -g | tail -2
done
timeout 150 compute-sanitizer --tool racecheck $S check --backend cuda --quick --dtype bf16 dsl/families/mamba2.yaml > $OUT/race-mamba2.txt 2>&1
echo "racecheck mamba2: $(grep -E 'RACECHECK SUMMARY|comparisons' $OUT/race-mamba2.txt | tail -2 | tr '\n' '|')"
