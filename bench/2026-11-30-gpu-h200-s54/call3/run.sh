#!/bin/bash
# s54 call 3: with BSQ (the tree, as call 2) is bstate's narrow form faster than the wide one where the runtime picks
# the wide one? GDN bf16 bwd (recomputing: fstate and bstate in the form the row names) against bwd-narrow, B8 T4096
# and B4 T8192 H16, the tree and 050b7bb (tpl-base); ncu stage times of the tree's bwd-narrow at B8.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for sh in "8 4096" "4 8192"; do set -- $sh
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B $1 --T $2 --H 16 \
    --rows bwd,bwd-narrow --reps 10 2>&1 | grep -E " bwd | bwd-narrow |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
done; done
for row in bwd bwd-narrow; do
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows $row --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== tree $row" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done
