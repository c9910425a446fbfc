#!/bin/bash
# s58 call 1: bstate's wide form in two blocks an SM (BS2: 256 threads, value tile 32, du in one buffer; tree) against
# the s57 templates (tpl-base, cbf5b33's); GDN and DeltaNet bf16 at four shapes; ncu per stage at B8; checks.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "4 8192 gated_deltanet" "2 16384 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet"; do set -- $sh
  for v in tree base tree base; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for sh in "8 4096" "4 8192"; do set -- $sh
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B $1 --T $2 --H 16 dsl/families/gated_deltanet.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v GDN B$1 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
for f in tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
  timeout 150 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
timeout 150 compute-sanitizer --tool racecheck --kernel-name kns=bf16_bstate --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_split_delta.yaml > /tmp/m.txt 2>&1
echo "racecheck bf16_bstate emu_split_delta rc=$? $(grep -E 'RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
grep -m3 -A4 "Error" /tmp/m.txt >> $OUT/checks.txt
cat $OUT/durations.txt
