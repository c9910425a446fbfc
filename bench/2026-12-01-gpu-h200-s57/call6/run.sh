#!/bin/bash
# s57 call 6: call 5's staged bgrad loop with Z0 . dZ_L summed by the producer from the stages (tree) against
# 8fedec7's templates (tpl-base); GDN B8 / B1, DeltaNet B8 bf16; ncu bgrad; checks; racecheck of the bf16 bgrad.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet"; do set -- $sh
  for v in tree base tree base; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
timeout 60 ncu --clock-control none -k regex:bgrad --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== tree GDN B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
for f in tests/fixtures/specs/emu_bgw_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
timeout 120 compute-sanitizer --tool racecheck --kernel-name kns=bf16_bgrad --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/m.txt 2>&1
echo "racecheck bf16_bgrad emu_bgw_delta rc=$? $(grep -E 'RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
grep -m3 -A4 "Error" /tmp/m.txt >> $OUT/checks.txt
