#!/bin/bash
# call 7: fused90's mask and row factors through ex2.approx (working tree) vs expf (2785184's templates)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for spec in mamba2 gated_deltanet; do
  timeout 150 $S check --backend cuda --no-bwd --dtype bf16 dsl/families/$spec.yaml > $OUT/check-$spec.txt 2>&1
  echo "check $spec new: $(tail -1 $OUT/check-$spec.txt)"; grep -E "FAIL|error" $OUT/check-$spec.txt | head -3; grep "fused90 y" $OUT/check-$spec.txt | head -5
done
for rep in 1 2; do
for v in base new; do
  t=""; [ $v = base ] && t="--templates .gpu/tpl-2785184"
  for spec in mamba2 gated_deltanet; do
    timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 $t dsl/families/$spec.yaml --B 8 --T 4096 --H 16 > $OUT/bench-$spec-$v-$rep.txt 2>&1
    echo "$spec $v: $(grep -E 'fwd-fused90' $OUT/bench-$spec-$v-$rep.txt | tr -s ' ' | cut -c40-120)"
  done
done
done
