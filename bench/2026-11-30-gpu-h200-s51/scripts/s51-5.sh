#!/bin/bash
# call 5: the tree (only the producer's k / q~ loads of call 2's change) against d4384bd
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for f in gated_deltanet deltanet; do
timeout 60 $S check --backend cuda --quick dsl/families/$f.yaml > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep FAIL /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for r in 1 2; do for v in .gpu/tpl-d4384bd new; do
  t=(); [ $v = new ] || t=(--templates $v)
  for f in gated_deltanet deltanet; do
  [ $f = deltanet ] && [ $r = 2 ] && continue
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
