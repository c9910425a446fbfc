#!/bin/bash
# call 7: checks of the modules whose backward stages changed besides call 6's (GKA, DeltaNet, my_ssm);
# GDN / DeltaNet bgrad with 32-key tiles (two blocks an SM: tpl-bk32) vs the tree (64, one block); GKA bwd base vs tree
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in base|bk32) echo "--templates .gpu/tpl-$1";; tree) echo "";; esac; }
for rep in 1 2; do
  for v in tree bk32; do
    timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 > $OUT/gdn-b8-$v-$rep.txt 2>&1
    echo "gdn B8 $v $rep: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/gdn-b8-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
  done
done
timeout 100 $S check $(tp bk32) --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn-bk32.txt 2>&1
echo "check gdn bk32: $(tail -1 $OUT/check-gdn-bk32.txt)"; grep FAIL $OUT/check-gdn-bk32.txt | head -3
for v in base tree; do
  timeout 150 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 3 dsl/families/gated_kalmanet.yaml --B 8 --T 4096 --H 16 > $OUT/gka-b8-$v.txt 2>&1
  echo "gka B8 $v: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/gka-b8-$v.txt | awk '{print $2, $6}' | tr '\n' ' ')"
done
timeout 200 $S check --backend cuda dsl/families/gated_kalmanet.yaml > $OUT/check-gka.txt 2>&1
echo "check gka: $(tail -1 $OUT/check-gka.txt)"; grep FAIL $OUT/check-gka.txt | head -3
for f in dsl/families/deltanet.yaml examples/my_ssm.yaml; do
  timeout 100 $S check --backend cuda --quick $f > $OUT/check-$(basename $f .yaml).txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$(basename $f .yaml).txt)"; grep FAIL $OUT/check-$(basename $f .yaml).txt | head -3
done
