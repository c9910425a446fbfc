#!/bin/bash
# s53 call 2 (diagnostic): GDN bgrad's time split. ncu durations of bgrad with the templates at f77c9e7 (tpl-base), with
# bgrad returning after its value loop (tpl-loop), with no value loop steps (tpl-post: NSTEP = 0), and with the loop's
# wgmma not issued (tpl-prod: the producer's loads and puts and the barriers alone). Results of the variants are wrong.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for v in base loop post prod base; do
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --templates .gpu/tpl-$v --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -E "bgrad|bstate" | tee -a $OUT/durations.txt
done
