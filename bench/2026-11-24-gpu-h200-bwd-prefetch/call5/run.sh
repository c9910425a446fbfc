#!/bin/bash
# session 15 call 5: bgrad's value loop in mm_kp's order (16-byte fragment loads) + exact-operand flags (dY, keys) vs 887a5d5; checks; stages
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-887a5d5";; tree) echo "";; esac; }
for f in mamba2 gated_deltanet gla deltanet kda gated_kalmanet; do
  timeout 200 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$f.txt)"
done
timeout 100 $S check --backend cuda --quick examples/my_ssm.yaml > $OUT/check-my_ssm.txt 2>&1; echo "check my_ssm: $(tail -1 $OUT/check-my_ssm.txt)"
grep -h " bwd " $OUT/check-*.txt | awk '$NF=="PASS" {print $1, $2, $4, $5, $6, $7}' | sort -k5 -g | tail -8
for rep in 1 2; do
  for f in mamba2 gated_deltanet; do
    for v in base tree; do
      timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v-$rep.txt 2>&1
      echo "$f B8 $v $rep: $(grep -E ' (fwd-fused90|bwd|fwd\+bwd) ' $OUT/b8-$f-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
    done
  done
done
