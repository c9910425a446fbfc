#!/bin/bash
# s52 call 4 (8296e45's templates): GDN B8 T4096 H16 bf16 bprep and bgrad under ncu with line info (source counters,
# warp states), one launch each, to choose the next step; the NVRTC cache filled on the workstation with
# SSMC_NVRTC_LINEINFO=1 (same keys)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache SSMC_NVRTC_LINEINFO=1
S=$PWD/.gpu/ssmc
mkdir -p /tmp/p
for k in bprep bgrad bstate; do
  timeout 120 ncu -k "regex:_${k}$" --launch-count 1 --section SpeedOfLight --section SourceCounters --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --import-source no -f -o /tmp/p/$k $S bench --backend cuda --dtype bf16 --templates .gpu/tpl-base --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/p/$k.log 2>&1
  echo "$k ncu rc=$?"
  ncu -i /tmp/p/$k.ncu-rep --page details > $OUT/$k-details.txt 2>&1
  ncu -i /tmp/p/$k.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/$k-cudasass.csv.xz
  grep -E "Duration|Registers Per|Block Size|Achieved Occ|Issue Slots Busy|Memory Throughput|Compute \(SM\)" $OUT/$k-details.txt | head -9
done
