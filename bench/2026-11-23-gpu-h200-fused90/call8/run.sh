#!/bin/bash
# call 8: review refactor (wg_product / wg_store helpers, z_at) vs 0c48bac's templates: same results, same time
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for spec in mamba2 gated_deltanet; do
  timeout 100 $S check --backend cuda --quick --no-bwd --dtype bf16 dsl/families/$spec.yaml > $OUT/check-$spec.txt 2>&1
  echo "check $spec: $(tail -1 $OUT/check-$spec.txt)"; grep -E "FAIL|error" $OUT/check-$spec.txt | head -3
  for v in base new; do
    t=""; [ $v = base ] && t="--templates .gpu/tpl-0c48bac"
    timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 $t dsl/families/$spec.yaml --B 8 --T 4096 --H 16 > $OUT/bench-$spec-$v.txt 2>&1
    echo "$spec $v: $(grep -E ' fwd' $OUT/bench-$spec-$v.txt | tr -s ' ' | cut -c40-110 | tr '\n' '|')"
  done
done
