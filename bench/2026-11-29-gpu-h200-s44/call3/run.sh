#!/bin/bash
# session 44 call 3 (f88df20): GDN B8 T4096 H16 bf16 backward stages bprep, bstate, bval, bgrad under ncu with line
# info (source counters and warp states only), one launch each; per-line and per-stage summaries tarred as they come
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=$PWD/.gpu/ssmc
GS=generated/gated_deltanet/ssmc_gated_deltanet_beee6720_k128v128_c64_bk64bv64_bf16.cu
mkdir -p /tmp/p
for k in bstate bprep bval bgrad; do
  timeout 110 ncu -k "regex:_${k}$" --launch-count 1 --section SpeedOfLight --section SourceCounters --section WarpStateStats --section Occupancy --section LaunchStats --import-source no -f -o /tmp/p/$k $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/p/$k.log 2>&1
  echo "$k ncu rc=$?"
  ncu -i /tmp/p/$k.ncu-rep --page details > $OUT/$k-details.txt 2>&1
  ncu -i /tmp/p/$k.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/$k-cudasass.csv.xz
  grep -E "Duration|Registers Per|Block Size|Achieved Occ|Issue Slots Busy|Memory Throughput" $OUT/$k-details.txt | head -8
done
