#!/bin/bash
# session 15 call 6: the kept tree (exact-operand flags for dY and the keys, no mm_kp) vs 887a5d5: checks, B8 times, GKA
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base) echo "--templates .gpu/tpl-887a5d5";; tree) echo "";; esac; }
for f in mamba2 gated_deltanet gla deltanet kda gated_kalmanet; do
  timeout 200 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$f.txt)"
done
grep -h " bwd " $OUT/check-*.txt | awk '$NF=="PASS" {print $1, $2, $4, $5, $6, $7}' | sort -k5 -g | tail -5
for f in mamba2 gated_deltanet; do
  for v in base tree; do
    timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f-$v.txt 2>&1
    echo "$f B8 $v: $(grep -E ' (fwd-fused90|bwd|fwd\+bwd) ' $OUT/b8-$f-$v.txt | awk '{print $2, $6}' | tr '\n' ' ')"
  done
done
for v in base tree; do
  timeout 150 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 3 dsl/families/gated_kalmanet.yaml --B 8 --T 4096 --H 16 > $OUT/b8-gka-$v.txt 2>&1
  echo "gka B8 $v: $(grep -E ' (fwd|bwd|fwd\+bwd) ' $OUT/b8-gka-$v.txt | awk '{print $2, $6}' | tr '\n' ' ')"
done
