#!/bin/bash
# session 38 call 3 (87cae51+: the call-2 binary): the split forward's stages at GDN B1 T32768 H16 under ncu (each
# stage's time, SM and memory throughput; the last launch of each), to see where its 1.38 ms go
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
$S bench --backend cuda --dtype bf16 --no-bwd $G --B 1 --T 32768 --H 16 --decode 1 --reps 2 > /dev/null 2>&1 # (the cache)
timeout 400 ncu -k regex:"(prep_fused|fused90_seg|fused90_scan|fused90_split)$" -c 12 --section SpeedOfLight --section LaunchStats --section Occupancy \
  $S bench --backend cuda --dtype bf16 --no-bwd $G --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/ncu.txt 2>&1
echo "ncu rc=$?"
grep -E "^  ssmc_|Duration|SM Busy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy" $OUT/ncu.txt | sed 's/^ *//' | cut -c1-110
