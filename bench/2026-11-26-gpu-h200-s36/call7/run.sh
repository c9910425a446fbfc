#!/bin/bash
# session 36 call 7 (4a687ca's binary, the kernels of the session's last commit): an unseen spec through fused90's bf16
# form with an erase, GDN at K = 64 V = 128 (../2026-11-23-gpu-h200-staged/unseen-specs/): check on the GPU (forward,
# and with the backward --quick), compute-sanitizer racecheck, bench rows at B8 T4096 H16
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
U=bench/2026-11-23-gpu-h200-staged/unseen-specs/gated_deltanet_64_128_64.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 150 $S check --backend cuda --dtype bf16 --no-bwd $U > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
timeout 150 $S check --backend cuda --dtype bf16 --quick $U > $OUT/check-bwd.txt 2>&1
echo "check bwd rc=$?"; grep -E "FAIL|comparisons" $OUT/check-bwd.txt | tail -2
timeout 100 compute-sanitizer --tool racecheck $S check --backend cuda --dtype bf16 --quick --no-bwd $U > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|comparisons" $OUT/racecheck.txt
timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd $U --B 8 --T 4096 --H 16 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? |rror" | tee $OUT/bench.txt | awk '{print $2, $6}'
