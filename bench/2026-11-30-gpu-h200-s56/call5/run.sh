#!/bin/bash
# s56 call 5: bstate's R16 path storing dZ_L under du's product instead of at a step's start (tree) against 58d79ca's
# templates (.gpu/tpl-r16), narrow (B1, B2) and wide (B8), GDN and DeltaNet bf16; ncu; checks; compute-sanitizer.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "1 32768 gated_deltanet" "2 16384 gated_deltanet" "8 4096 gated_deltanet" "1 32768 deltanet" "8 4096 deltanet"; do set -- $sh
  for v in tree r16 tree; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
for sh in "1 32768" "8 4096"; do set -- $sh
  for v in tree r16; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B $1 --T $2 --H 16 dsl/families/gated_deltanet.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v GDN B$1 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
  done
done
for f in tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for k in bstate_n bstate; do for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --kernel-name kns=$k --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_split_delta.yaml > /tmp/m.txt 2>&1
  echo "$tool $k emu_split_delta rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done; done
timeout 150 .gpu/ssmc check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "full gated_deltanet rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
