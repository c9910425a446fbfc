#!/bin/bash
# s60 call 2 (diagnostic, f70e32b): warp samples per instruction (ncu SourceCounters, line info) of GDN's bgrad and
# bprep and Mamba-2's bgrad, bval and bprep (B8 T4096 H16 bf16, one launch each after the first); the NVRTC cache
# filled on the workstation with SSMC_NVRTC_LINEINFO=1
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache SSMC_NVRTC_LINEINFO=1
for fk in "gated_deltanet bgrad" "gated_deltanet bprep" "mamba2 bgrad" "mamba2 bval" "mamba2 bprep"; do set -- $fk
  timeout 150 ncu --clock-control none -k regex:"bf16_$2\$" --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis -o /tmp/r_$1_$2 .gpu/ssmc bench --backend cuda --dtype bf16 \
    --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$1.yaml > $OUT/ncu_$1_$2.log 2>&1
  ncu -i /tmp/r_$1_$2.ncu-rep --page source --csv --print-source sass 2>/dev/null | xz > $OUT/src_$1_$2.csv.xz
  ncu -i /tmp/r_$1_$2.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/cs_$1_$2.csv.xz
  ncu -i /tmp/r_$1_$2.ncu-rep --page details > $OUT/details_$1_$2.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occ|Memory Throughput|Compute \(SM\)|DRAM Throughput" $OUT/details_$1_$2.txt | head -8
done
ls -la $OUT
