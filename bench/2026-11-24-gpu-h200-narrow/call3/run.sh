#!/bin/bash
# session 17 call 3: the narrow form's shape (value columns NBV, threads NNT) at GDN B1 T32768 H16 bf16; KDA check; KDA, DeltaNet B1
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for v in base b8 n128 n512; do
  T=""; [ $v != base ] && T="--templates .gpu/tplv/$v"
  echo "== $v"
  timeout 100 $S bench $T --backend cuda --dtype bf16 --decode 1 --no-bwd dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 2>&1 | grep -E "fwd-narrow|error" | awk '{print $2, $3, $4, $5, $6, $7}'
  timeout 100 $S bench $T --backend cuda --dtype bf16 --decode 1 dsl/families/deltanet.yaml --B 1 --T 32768 --H 16 2>&1 | grep -E "bwd-narrow|error" | awk '{print $2, $3, $4, $5, $6, $7}'
done
timeout 150 $S check --backend cuda --quick dsl/families/kda.yaml > $OUT/check-kda.txt 2>&1
echo "check kda rc=$? rows=$(grep -c 'PASS\|FAIL' $OUT/check-kda.txt) fail=$(grep -c 'FAIL\|error' $OUT/check-kda.txt) narrow=$(grep -c 'narrow.*PASS' $OUT/check-kda.txt)"
grep -E "FAIL|error" $OUT/check-kda.txt | head -5
timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 dsl/families/kda.yaml --B 1 --T 32768 --H 16 2>&1 | grep -E "fwd|bwd" | grep -v "^#" | awk '{print $2, $3, $4, $5, $6, $7}'
