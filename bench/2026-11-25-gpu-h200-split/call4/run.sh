#!/bin/bash
# session 29 call 4: 8d4562e's binary (.gpu-pack of call 3); per-kernel times of the split forward under ncu
# (fused90_seg, scan, fused90) at Mamba-2 B1 T32768 H16 and K = V = 64 B1 T32768 H32, with the tensor pipe's
# and the SMs' activity
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in "dsl/families/mamba2.yaml --H 16" "tests/fixtures/specs/cuda_fused_k64.yaml --H 32"; do
  n=$(basename ${s%% *} .yaml)
  timeout 200 ncu -k regex:"fused90_seg|_scan$|_fused90$" -c 12 --metrics $M $S bench --backend cuda --dtype bf16 $s --B 1 --T 32768 --decode 1 --reps 1 --no-bwd > $OUT/ncu-$n.log 2>&1
  echo "ncu $n rc=$?"; grep -E "^  ssmc_|duration|pct" $OUT/ncu-$n.log | tail -40
done
