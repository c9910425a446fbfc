#!/bin/bash
# call 9: the final commit (3591df4, review) on the GPU: checks with backward rows, Mamba-2 / GDN B8 bench
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in dsl/families/mamba2.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/gla.yaml; do
  timeout 100 $S check --backend cuda --quick $f > $OUT/check-$(basename $f .yaml).txt 2>&1
  echo "check $f: $(tail -1 $OUT/check-$(basename $f .yaml).txt)"; grep FAIL $OUT/check-$(basename $f .yaml).txt | head -3
done
for f in mamba2 gated_deltanet; do
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f.txt 2>&1
  echo "$f B8: $(grep -E ' (fwd-fused90|bwd|fwd\+bwd) ' $OUT/b8-$f.txt | awk '{print $2, $6}' | tr '\n' ' ')"
done
