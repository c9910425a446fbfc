#!/bin/bash
# session 17 call 8: decode_large with an erase in two column parts, the write coefficient read after the barrier (call 5's race: it was read before); checks, racecheck, B512
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 120 compute-sanitizer --tool racecheck $S bench --backend cuda --dtype bf16 --decode 8 --reps 1 --no-bwd dsl/families/gated_deltanet.yaml --B 1 --T 64 --H 2 > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $OUT/racecheck.txt)"
for f in gated_deltanet deltanet kda; do
  timeout 150 $S check --backend cuda --quick --no-bwd dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? rows=$(grep -c 'PASS\|FAIL' $OUT/check-$f.txt) fail=$(grep -c 'FAIL\|error' $OUT/check-$f.txt) decode-large=$(grep -c 'decode-large.*PASS' $OUT/check-$f.txt)"
  grep -E "FAIL|error" $OUT/check-$f.txt | head -3
done
for r in 1 2; do
  for f in gated_deltanet deltanet kda mamba2; do
    echo "r$r $f $(timeout 100 $S bench --backend cuda --dtype bf16 --decode 512 --no-bwd dsl/families/$f.yaml --B 1 --T 64 --H 16 2>&1 | grep -E 'decode|error' | awk '{print $5, $6, $7, $12, $13, $14}' | tr '\n' ' ')"
  done
done
