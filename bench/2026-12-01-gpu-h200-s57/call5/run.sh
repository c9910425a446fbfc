#!/bin/bash
# s57 call 5: bgrad's staged value loop (STG: the producer's cp.async into two raw stages, the consumers parting them
# into the step's buffer) (tree) against 8fedec7's templates (tpl-base); GDN B8 / B1, DeltaNet B8 bf16; ncu bgrad;
# checks; compute-sanitizer on bgrad.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet"; do set -- $sh
  for v in tree base tree base; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 60 ncu --clock-control none -k regex:bgrad --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
    --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml $t > /tmp/g.csv 2>/tmp/g.err
  echo "== $v GDN B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done
for f in tests/fixtures/specs/emu_bgw_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --kernel-name kns=bgrad --error-exitcode 9 .gpu/ssmc check --backend cuda --quick --dtype bf16 tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/m.txt 2>&1
  echo "$tool bgrad emu_bgw_delta bf16 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
  grep -m2 -A8 "Error\|Hazard" /tmp/m.txt >> $OUT/checks.txt
done
