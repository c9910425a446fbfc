#!/bin/bash
# s55 call 5: compute-sanitizer on the kept split forward's segment passes (call 4's binary, dffdc87's code):
# racecheck of fused90_split_keep (with an erase), memcheck and racecheck of fused90_keep run over segments (without).
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for run in "racecheck fused90_split_keep emu_split_delta" "memcheck fused90_keep emu_f90" "racecheck fused90_keep emu_f90"; do set -- $run
timeout 90 compute-sanitizer --tool $1 --kernel-name kns=$2 --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/$3.yaml > /tmp/m.txt 2>&1
echo "$1 $2 $3 rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
grep -E "saved-split" /tmp/m.txt | head -3 >> $OUT/checks.txt
done
