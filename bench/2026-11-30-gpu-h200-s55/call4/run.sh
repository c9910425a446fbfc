#!/bin/bash
# s55 call 4: call 3's code with the runtime loading fused90_split_keep (call 3's binary had no function for it and
# crashed at every kept split forward with an erase): GDN and DeltaNet bf16 bwd-saved and fwd+bwd-saved (base
# numbers: call 3's ssmc-base), Mamba-2 B1 again; checks, compute-sanitizer on fused90_split_keep, ncu at GDN B1.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "1 32768 gated_deltanet" "2 16384 gated_deltanet" "1 32768 deltanet" "1 32768 mamba2" "1 32768 gated_deltanet"; do set -- $sh
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | tee -a $OUT/ab.txt
done
for f in tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
timeout 60 compute-sanitizer --tool memcheck --kernel-name kns=fused90_split_keep --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_split_delta.yaml > /tmp/m.txt 2>&1
echo "memcheck fused90_split_keep emu_split_delta rc=$? $(grep -E 'ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 1 --T 32768 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== tree GDN B1" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
timeout 150 .gpu/ssmc check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "full gated_deltanet rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep -E "saved-split" /tmp/q.txt > $OUT/gdn-split-rows.txt
