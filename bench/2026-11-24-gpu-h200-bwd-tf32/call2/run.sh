#!/bin/bash
# call 2: the backward's tile products one tf32 product everywhere (new: main's templates with mm32 = MM_TF32,
# built in) vs mm32 = MM_TF3 (base: main's templates, tpl-2565e1c), bf16 B8 T4096 H16
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; B=".gpu/tpl-2565e1c"
for f in mamba2 gated_deltanet gla; do
  for rep in 1 2; do
    for v in new base; do
      t=(); [ $v = base ] && t=(--templates $B)
      timeout 100 $S bench "${t[@]}" --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/bench-$f-$v-$rep.txt 2>&1
      echo "$f $v $rep: $(grep -E ' (bwd|fwd\+bwd)' $OUT/bench-$f-$v-$rep.txt | awk '{print $2, $5, $6}' | tr '\n' ' ')"
    done
  done
done
timeout 150 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-mamba2.csv 2>/dev/null
timeout 200 $S check --backend cuda dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
