#!/bin/bash
# s53 call 7 (diagnostic, for the next session's plan): GDN bgrad at 5d1376a (tree) against variants that leave one
# part out (results wrong, times only): the value loop's global loads (nofetch: the producer's tiles zero), the
# per-token loop's dq/dk stores (notokst), its warp sums (notoksum). ncu durations, two passes of the tree.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for v in tree nofetch notokst notoksum tree; do t=(); [ $v = tree ] || t=(--templates .gpu/tpl-$v)
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -E "bgrad" | tee -a $OUT/durations.txt
done
