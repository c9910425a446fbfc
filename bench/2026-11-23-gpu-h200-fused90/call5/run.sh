#!/bin/bash
# call 5: fused90 with four barriers a chunk (working tree: warp 0 makes the coefficients, the next chunk's
# scalar inputs put before the state's barrier) vs 8026fac's templates, same binary, same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for spec in mamba2 gated_deltanet; do
  timeout 150 $S check --backend cuda --no-bwd dsl/families/$spec.yaml > $OUT/check-$spec.txt 2>&1
  echo "check $spec new: $(tail -1 $OUT/check-$spec.txt)"; grep -E "FAIL|error" $OUT/check-$spec.txt | head -3
done
for rep in 1 2; do
for v in base new; do
  t=""; [ $v = base ] && t="--templates .gpu/tpl-8026fac"
  for spec in mamba2 gated_deltanet; do
    timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 $t dsl/families/$spec.yaml --B 8 --T 4096 --H 16 > $OUT/bench-$spec-$v-$rep.txt 2>&1
    echo "$spec $v: $(grep -E 'fwd-fused90' $OUT/bench-$spec-$v-$rep.txt | tr -s ' ' | cut -c40-120)"
  done
done
done
timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 tests/fixtures/specs/cuda_fused_k64.yaml --B 8 --T 4096 --H 32 > $OUT/bench-k64.txt 2>&1
echo "k64 new: $(grep -E 'fwd-fused90' $OUT/bench-k64.txt | tr -s ' ' | cut -c40-120)"
timeout 100 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd dsl/families/mamba2.yaml > $OUT/race-mamba2.txt 2>&1
echo "racecheck mamba2: $(grep -E 'RACECHECK SUMMARY|comparisons' $OUT/race-mamba2.txt | tail -2 | tr '\n' '|')"
