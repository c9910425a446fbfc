#!/bin/bash
# session 16 call 5: bval's v . dr and dv with v's rows through registers (a quarter chunk at a time) vs 8bed25f; checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-8bed25f";; tree) echo "";; esac; }
for f in mamba2 gated_deltanet gated_kalmanet; do
  timeout 120 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -n 1 $OUT/check-$f.txt)"; grep -E "FAIL" $OUT/check-$f.txt | head -5
done
for rep in 1 2; do
  for f in mamba2 gated_deltanet; do
    for v in base tree; do
      timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v-$rep.txt 2>&1
      echo "$f B8 $v $rep: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/b8-$f-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
    done
  done
done
