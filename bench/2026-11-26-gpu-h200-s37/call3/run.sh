#!/bin/bash
# session 37 call 3 (9ba2fea's binary): profiles for the next step: ncu --set full of prep_fused and fused90 (HD) at
# GDN K = V = 128 H16 B8 and K = V = 64 H32 B8 (details and per-instruction SASS samples); GDN B1 T32768 H16 rows
# (fwd-narrow, the pick, against HD's fused90 at 16 blocks)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
G=dsl/families/gated_deltanet.yaml
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
timeout 90 $S bench --backend cuda --dtype bf16 --no-bwd $G --B 1 --T 32768 --H 16 --decode 1 --reps 10 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | tee $OUT/bench.txt | awk '{print $2, $6}'
mkdir -p $OUT/r
prof() { # name spec shape
  timeout 150 ncu -k regex:"bf16_(prep_fused|fused90)\$" -c 2 --set full --import-source no -o $OUT/r/$1 $S bench --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 1 > $OUT/ncu-$1.log 2>&1
  echo "ncu $1 rc=$?"
  ncu -i $OUT/r/$1.ncu-rep --page details > $OUT/$1-details.txt 2>&1
  ncu -i $OUT/r/$1.ncu-rep --page source --csv --print-source sass > $OUT/$1-sass.csv 2>&1
  grep -E "^  [a-z_0-9]+_(prep_fused|fused90)|Duration|Compute \(SM\) Throughput|Executed Ipc A|Registers Per|Achieved Occupancy" $OUT/$1-details.txt | head -14
  gzip $OUT/$1-sass.csv
}
prof k128 $G "--B 8 --T 4096 --H 16"
prof k64 $G64 "--B 8 --T 4096 --H 32"
rm -rf $OUT/r
