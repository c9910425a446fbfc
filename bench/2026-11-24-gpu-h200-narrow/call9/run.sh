#!/bin/bash
# session 17 call 9: call 8's tree with Mamba-2's decode_large whole again (call 8 ran it on half the columns: 165% "of the floor"); checks, B512
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in mamba2 gla gated_deltanet; do
  timeout 150 $S check --backend cuda --quick --no-bwd dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? rows=$(grep -c 'PASS\|FAIL' $OUT/check-$f.txt) fail=$(grep -c 'FAIL\|error' $OUT/check-$f.txt) decode-large=$(grep -c 'decode-large.*PASS' $OUT/check-$f.txt)"
  grep -E "FAIL|error" $OUT/check-$f.txt | head -3
done
for r in 1 2; do
  for f in gated_deltanet mamba2; do
    echo "r$r $f $(timeout 100 $S bench --backend cuda --dtype bf16 --decode 1,512 --no-bwd dsl/families/$f.yaml --B 1 --T 64 --H 16 2>&1 | grep -E 'decode|error' | awk '{print $3, $5, $6, $7, $12, $13, $14, $15, $16, $17}' | tr '\n' ' ')"
  done
done
