#!/bin/bash
# session 17 call 2: the narrow chunk-to-chunk stages (state_n, fstate_n, bstate_n): checks, and wide vs narrow by batch
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in gated_deltanet deltanet; do
  timeout 150 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? rows=$(grep -c 'PASS\|FAIL' $OUT/check-$f.txt) fail=$(grep -c 'FAIL\|error' $OUT/check-$f.txt) narrow=$(grep -c 'narrow.*PASS' $OUT/check-$f.txt)"
  grep -E "FAIL|error" $OUT/check-$f.txt | head -5
done
for sh in "1 32768" "2 16384" "4 8192" "8 4096"; do
  set -- $sh
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 dsl/families/gated_deltanet.yaml --B $1 --T $2 --H 16 2>&1 | grep -E "fwd|bwd" | grep -v "^#" | awk '{print $2, $3, $4, $5, $6, $7}'
done
