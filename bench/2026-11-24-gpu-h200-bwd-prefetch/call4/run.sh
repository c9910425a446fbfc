#!/bin/bash
# session 15 call 4: operands exact in tf32 (mmb XA/XB; one-product tiles rounded where written) vs 887a5d5; checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-887a5d5";; tree) echo "";; esac; }
for f in mamba2 gated_deltanet gla deltanet kda; do
  timeout 200 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$f.txt)"
done
grep -h " bwd " $OUT/check-*.txt | awk '$NF=="PASS" {print $1, $2, $4, $5, $6, $7}' | sort -k5 -g | tail -6
for rep in 1 2; do
  for f in mamba2 gated_deltanet gla; do
    for v in base tree; do
      timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v-$rep.txt 2>&1
      echo "$f B8 $v $rep: $(grep -E ' (fwd|fwd-fused90|bwd|fwd\+bwd) ' $OUT/b8-$f-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
    done
  done
done
