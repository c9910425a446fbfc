#!/bin/bash
# s52 call 6: bprep's query rows loaded before the keys (in flight under them and the prefix sum), against 52f4c78.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in .gpu/tpl-base tree; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for f in gated_deltanet mamba2; do
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for v in .gpu/tpl-base tree; do t=(); [ $v = tree ] || t=(--templates $v)
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
for f in gated_deltanet mamba2; do
timeout 90 $S check --backend cuda --quick dsl/families/$f.yaml > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
