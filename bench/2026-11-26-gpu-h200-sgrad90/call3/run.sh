#!/bin/bash
# session 32 call 3 (f75e9e6's templates, as call 2): ncu of the backward's solve stages alone (call 2's ncu filter caught
# only the forward's psolve90 in its first 11 launches), GKA B8 T4096 H16
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem
timeout 200 ncu -k regex:"_(gsolve90|sgrad90|hadj)$" -c 3 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_.*CC 9|duration|throughput|registers|warps_active|limit" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//'
