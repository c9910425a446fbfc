#!/bin/bash
# s55 call 3: the kept forward split with an erase too (GDN, DeltaNet: prep_fused, fused90_seg, fused90_scan,
# prep_fused_keep again, fused90_split_keep) and without one (Mamba-2, call 2's code), against 7b6898a's binary
# (ssmc-base: a kept forward never split) in the same call; checks, compute-sanitizer on fused90_split_keep, ncu.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for r in 1 2; do for b in ssmc ssmc-base; do
  sh_all=("1 32768 gated_deltanet" "2 16384 gated_deltanet" "1 32768 deltanet" "1 32768 mamba2" "2 16384 mamba2")
  [ $r = 2 ] && sh_all=("1 32768 gated_deltanet" "1 32768 mamba2")
  for sh in "${sh_all[@]}"; do set -- $sh
  timeout 60 .gpu/$b bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" |
    sed "s|^|round$r $b |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $4, $5, $6, $7, $8}'
  done
done; done
for f in tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml; do
timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
timeout 150 .gpu/ssmc check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "full gated_deltanet rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep -E "saved-split" /tmp/q.txt > $OUT/gdn-split-rows.txt
for tool in memcheck racecheck; do
timeout 100 compute-sanitizer --tool $tool --kernel-name kns=fused90_split_keep --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_split_delta.yaml > /tmp/m.txt 2>&1
echo "$tool fused90_split_keep emu_split_delta rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 1 --T 32768 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== tree GDN B1" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
