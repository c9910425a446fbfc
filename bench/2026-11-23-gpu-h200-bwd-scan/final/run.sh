#!/bin/bash
# call 3: final code (fprep writes kd, U): GKA/Mamba-2 full checks, GDN quick, bench, memcheck, racecheck
D=.gpu-bscan; S=$D/ssmc
export LD_LIBRARY_PATH=$PWD/$D SSMC_CACHE_DIR=$(mktemp -d)
T0=$(date +%s)
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u) > $OUT/env.txt
for s in dsl/families/gated_kalmanet.yaml dsl/families/mamba2.yaml "--quick dsl/families/gated_deltanet.yaml"; do
  b=$(basename ${s##* } .yaml); t0=$(date +%s)
  timeout 110 $S check --backend cuda $s > $OUT/check-$b.txt 2>&1; rc=$?
  echo "$b rc=$rc $(grep -c FAIL $OUT/check-$b.txt) fail; $(tail -1 $OUT/check-$b.txt) ($(( $(date +%s) - t0 )) s)"; grep FAIL $OUT/check-$b.txt | head -5
done
b() { echo "## new $1 B$2 T$3" >> $OUT/bench.txt
  timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$1.yaml --B $2 --T $3 --H 16 --decode 1 --reps 20 2>&1 | grep -E "fwd|bwd" >> $OUT/bench.txt; }
b mamba2 8 4096; b mamba2 1 32768; b gla 8 4096
grep -E "^##|bwd" $OUT/bench.txt
echo "elapsed $(( $(date +%s) - T0 )) s"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 $S check --backend cuda --quick dsl/families/mamba2.yaml > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|comparisons' $OUT/memcheck.txt | tr '\n' ' ')"
timeout 75 compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 $S check --backend cuda --quick dsl/families/mamba2.yaml > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' $OUT/racecheck.txt | tr '\n' ' ')"
echo "elapsed $(( $(date +%s) - T0 )) s"
