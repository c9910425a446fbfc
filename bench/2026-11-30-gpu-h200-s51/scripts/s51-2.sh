#!/bin/bash
# call 2: the working tree (bgrad: b before the loop, the wgmma loop's results scaled in the accumulators, k and q~
# loaded by the producer) against d4384bd (.gpu/tpl-d4384bd)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
timeout 150 $S check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/full.txt 2>&1
echo "full gdn rc=$? $(tail -n1 /tmp/full.txt)" | tee $OUT/checks.txt
grep -E "FAIL|edges .*bwd-saved.* (dg|dq|dk|dbeta) " /tmp/full.txt | head -12 >> $OUT/checks.txt
for f in dsl/families/mamba2.yaml dsl/families/deltanet.yaml tests/fixtures/specs/emu_f90_delta_k96.yaml examples/my_ssm.yaml; do
timeout 60 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep FAIL /tmp/q.txt | head -5 >> $OUT/checks.txt; done
for r in 1 2; do for v in .gpu/tpl-d4384bd new; do
  t=(); [ $v = new ] || t=(--templates $v)
  for f in gated_deltanet mamba2; do
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
python3 bench/ncu_durations.py /tmp/g.csv | tee $OUT/durations.txt
