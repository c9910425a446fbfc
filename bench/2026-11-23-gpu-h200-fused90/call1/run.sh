#!/bin/bash
# call 1: fused90 (sm_90a fused forward, every product on wgmma) on the H200: checks, sanitizers, bench, ncu
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 200 $S check --backend cuda --no-bwd dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
echo "check mamba2: $(tail -1 $OUT/check-mamba2.txt)"; grep -E "FAIL|error" $OUT/check-mamba2.txt | head -5
grep "fused90 y" $OUT/check-mamba2.txt | head -12
timeout 100 $S check --backend cuda --quick --no-bwd tests/fixtures/specs/cuda_fused_k64.yaml > $OUT/check-k64.txt 2>&1
echo "check k64: $(tail -1 $OUT/check-k64.txt)"; grep -E "FAIL|error" $OUT/check-k64.txt | head -5
for B in 8 1 2 4 16; do
  T=4096; [ $B = 1 ] && T=32768
  timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 dsl/families/mamba2.yaml --B $B --T $T --H 16 > $OUT/bench-m2-B$B.txt 2>&1
  echo "mamba2 B$B T$T: $(grep -E ' fwd' $OUT/bench-m2-B$B.txt | tr -s ' ' | cut -c1-200 | tr '\n' '|')"
done
for B in 8 2 4; do
  timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 tests/fixtures/specs/cuda_fused_k64.yaml --B $B --T 4096 --H 32 > $OUT/bench-k64-B$B.txt 2>&1
  echo "k64 B$B H32: $(grep -E ' fwd' $OUT/bench-k64-B$B.txt | tr -s ' ' | cut -c1-200 | tr '\n' '|')"
done
timeout 120 ncu --clock-control none --kernel-name regex:'bf16_fused90$' --launch-count 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats --metrics gpu__time_duration.sum,sm__inst_executed.sum \
  $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 1 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-fused90.txt 2>&1
grep -E "Duration|inst_executed|Throughput|Stall|Issue|Registers|IPC" $OUT/ncu-fused90.txt | head -30
timeout 150 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd dsl/families/mamba2.yaml > $OUT/race-mamba2.txt 2>&1
echo "racecheck: $(grep -E 'RACECHECK SUMMARY|hazard|comparisons' $OUT/race-mamba2.txt | tail -3 | tr '\n' '|')"
timeout 100 compute-sanitizer --tool memcheck $S check --backend cuda --quick --no-bwd dsl/families/mamba2.yaml > $OUT/mem-mamba2.txt 2>&1
echo "memcheck: $(grep -E 'ERROR SUMMARY|comparisons' $OUT/mem-mamba2.txt | tail -2 | tr '\n' '|')"
