#!/bin/bash
# session 16 call 3: the split form's mm_acc k loop not unrolled (no spill on sm_80), vs 4b7c640; checks of the other families
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-4b7c640";; tree) echo "";; esac; }
for f in deltanet kda gated_kalmanet; do
  timeout 100 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -n 1 $OUT/check-$f.txt)"; grep -E "FAIL" $OUT/check-$f.txt | head -5
done
timeout 100 $S check --backend cuda --quick examples/my_ssm.yaml > $OUT/check-my_ssm.txt 2>&1
echo "check my_ssm: $(tail -n 1 $OUT/check-my_ssm.txt)"
for rep in 1 2; do
  for f in gated_deltanet; do
    for v in base tree; do
      timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v-$rep.txt 2>&1
      echo "$f B8 $v $rep: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/b8-$f-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
    done
  done
done
timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/b8-mamba2-tree.txt 2>&1
echo "mamba2 B8 tree: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/b8-mamba2-tree.txt | awk '{print $2, $6}' | tr '\n' ' ')"
