#!/bin/bash
# s56 call 2: bstate_n's ring (T and the query rows in two buffers; every tile of step j + 1 issued at the start of
# step j) against its base (.gpu/tpl-base: 15595c0's templates; the runtime is the same), GDN and DeltaNet bf16;
# checks, compute-sanitizer on bstate_n, ncu at GDN B1.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "1 32768 gated_deltanet" "2 16384 gated_deltanet" "1 32768 deltanet"; do set -- $sh
  for v in tree base tree; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
  --dtype bf16 --rows bwd-saved --reps 1 --B 1 --T 32768 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== tree GDN B1 bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
for f in tests/fixtures/specs/emu_delta.yaml tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --kernel-name kns=bstate_n --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_delta.yaml > /tmp/m.txt 2>&1
  echo "$tool bstate_n emu_delta rc=$? $(grep -E 'ERROR SUMMARY|HAZARD|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done
timeout 150 .gpu/ssmc check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "full gated_deltanet rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep -E "narrow" /tmp/q.txt | grep -E "4096|T=4096" | head -20 > $OUT/gdn-narrow-rows.txt
