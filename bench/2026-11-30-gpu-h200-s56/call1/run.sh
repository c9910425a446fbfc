#!/bin/bash
# s56 call 1 (diagnostic): what GDN's narrow backward state pass (bstate_n, 2.13 ms at B1 T32768 H16) is made of.
# Template variants (.gpu/tpl-*; results of noqy/noload/noprod are wrong, times only): nb8 (narrow width 8, bstate_n
# two blocks an SM), nb8one (width 8, launch bounds as the tree), noqy (BSQ's q' y product left out), noload (a step's
# key, factor, query and T loads left out), noprod (the four products left out, barriers kept).
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
B="dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16"
for v in tree nb8 nb8one noqy noload noprod; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 90 .gpu/ssmc bench --backend cuda --dtype bf16 $B --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 \
    | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  timeout 90 ncu --clock-control none -k regex:bstate --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
    --print-units base --csv .gpu/ssmc bench --backend cuda --dtype bf16 $B --rows bwd-saved --reps 1 $t > /tmp/n.csv 2>/tmp/n.err
  grep -E "bstate" /tmp/n.csv | head -30 > $OUT/ncu-$v.csv; tail -3 /tmp/n.err >> $OUT/ncu-$v.csv
done
# the nb8 forms checked against the oracle (the narrow backward rows at B1 .. edge shapes)
timeout 150 .gpu/ssmc check --backend cuda --quick dsl/families/gated_deltanet.yaml --templates .gpu/tpl-nb8 > /tmp/q.txt 2>&1
echo "quick gdn nb8 rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
# the forward's narrow pass at width 8 (sm_80's and the unsplit forward's few-item form) and B2, tree against nb8
for v in tree nb8; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 90 .gpu/ssmc bench --backend cuda --dtype bf16 $B --rows fwd-narrow --reps 5 $t 2>&1 | grep -E " fwd|rror" | sed "s/^/$v B1 /" | tee -a $OUT/ab.txt
  timeout 90 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 2 --T 16384 --H 16 --rows bwd-saved,fwd-narrow --reps 5 $t 2>&1 \
    | grep -E " bwd-saved| fwd|rror" | sed "s/^/$v B2 /" | tee -a $OUT/ab.txt
done
