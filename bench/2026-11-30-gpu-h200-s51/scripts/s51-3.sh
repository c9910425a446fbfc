#!/bin/bash
# call 3: the working tree (b before the loop by the consumers alone, behind a named barrier) against d4384bd and
# against the tree without the producer's k / q~ loads (.gpu/tpl-nokq: PFQ = false)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
timeout 60 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "quick gdn rc=$? $(tail -n1 /tmp/q.txt)" | tee $OUT/checks.txt; grep FAIL /tmp/q.txt | head -5 >> $OUT/checks.txt
for r in 1 2; do for v in .gpu/tpl-d4384bd new .gpu/tpl-nokq; do
  t=(); [ $v = new ] || t=(--templates $v)
  for f in gated_deltanet; do
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for v in .gpu/tpl-d4384bd new; do
  t=(); [ $v = new ] || t=(--templates $v)
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/deltanet.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round1 $v deltanet |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
python3 bench/ncu_durations.py /tmp/g.csv | tee $OUT/durations.txt
