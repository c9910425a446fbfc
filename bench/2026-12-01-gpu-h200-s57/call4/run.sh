#!/bin/bash
# s57 call 4: bstate_n's ring with the keys, query rows and T by bulk copies onto mbarriers (tree) against 8fedec7's
# templates (tpl-base); GDN B1 / B2, DeltaNet B1 bf16; ncu stage times; checks; compute-sanitizer on bstate_n.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "1 32768 gated_deltanet" "2 16384 gated_deltanet" "1 32768 deltanet"; do set -- $sh
  for v in tree base tree base; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 60 ncu --clock-control none -k regex:bstate --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
    --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 1 --T 32768 --H 16 dsl/families/gated_deltanet.yaml $t > /tmp/g.csv 2>/tmp/g.err
  echo "== $v GDN B1 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done
for f in tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --kernel-name kns=bstate_n --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_split_delta.yaml > /tmp/m.txt 2>&1
  echo "$tool bstate_n emu_split_delta rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
  grep -m3 -A6 "Error\|Hazard" /tmp/m.txt >> $OUT/checks.txt
done
timeout 150 .gpu/ssmc check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "full gated_deltanet rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
