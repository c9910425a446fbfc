#!/bin/bash
# s53 call 3 (diagnostic): GDN bgrad's phases after its value loop. ncu durations of bgrad with f77c9e7's templates
# (tpl-base) and with one phase after the loop not run: the four tile products (noprod), the per-token loop (notok),
# pair_decay and rows_scale (nodecay), the k and q~ tiles' loads (nokq). Results of the variants are wrong.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for v in base noprod notok nodecay nokq base; do
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --templates .gpu/tpl-$v --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -E "bgrad" | tee -a $OUT/durations.txt
done
