#!/bin/bash
# session 47 call 5 (fbce160, the same pack): where Mamba-2's split forward's segment pass and the kept forwards spend
# their time. ncu with line info (SSMC_NVRTC_LINEINFO=1), one launch each, sections SpeedOfLight, SourceCounters,
# WarpStateStats, Occupancy, LaunchStats: Mamba-2 fused90_seg (fwd-split B2 T16384 H16), Mamba-2 fused90 and
# fused90_keep (B8 T4096 H16), GDN fused90_keep (B8 T4096 H16). Details pages, and the source pages (CUDA + SASS) of
# fused90_seg and Mamba-2's fused90_keep.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=$PWD/.gpu/ssmc
mkdir -p /tmp/p
prof() { # name kernel-suffix spec rows B T
  timeout 110 ncu -k "regex:_bf16_$2\$" --launch-count 1 --section SpeedOfLight --section SourceCounters \
    --section WarpStateStats --section Occupancy --section LaunchStats --import-source no -f -o /tmp/p/$1 \
    $S bench --backend cuda --dtype bf16 --reps 1 --rows $4 --B $5 --T $6 --H 16 dsl/families/$3.yaml > /tmp/p/$1.log 2>&1
  echo "$1 ncu rc=$?"
  ncu -i /tmp/p/$1.ncu-rep --page details > $OUT/$1-details.txt 2>&1
  grep -E "Duration|Registers Per|Block Size|Achieved Occ|Issue Slots Busy|Memory Throughput|DRAM Throughput" $OUT/$1-details.txt | head -8
}
prof seg fused90_seg mamba2 fwd-split 2 16384
ncu -i /tmp/p/seg.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/seg-cudasass.csv.xz
prof m2f90 fused90 mamba2 fwd-fused90 8 4096
prof m2keep fused90_keep mamba2 fwd+bwd-saved 8 4096
ncu -i /tmp/p/m2keep.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/m2keep-cudasass.csv.xz
prof gdnkeep fused90_keep gated_deltanet fwd+bwd-saved 8 4096
ls -la $OUT
