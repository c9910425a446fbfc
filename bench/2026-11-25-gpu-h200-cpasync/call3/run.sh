#!/bin/bash
# session 25 call 3 (3477185): ncu of GDN's narrow state passes with the cp.async copies, state_n and bstate_n
# (B1 T32768 H16 bf16): throughputs, stall reasons, SASS samples by window of 100 instructions
# (sass_segments.py of the gpu-h200-bgw record)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for k in state_n bstate_n; do
  timeout 200 ncu -k regex:"_${k}\$" -c 1 --set full --import-source no -o $OUT/$k $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/ncu-$k.log 2>&1
  echo "ncu $k rc=$?"; tail -1 $OUT/ncu-$k.log
  ncu -i $OUT/$k.ncu-rep --page details --csv > $OUT/details-$k.csv 2>&1
  ncu -i $OUT/$k.ncu-rep --page source --csv --print-source sass > $OUT/sass-$k.csv 2>&1
  grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Executed Ipc Active|L2 Hit Rate|Issue Slots Busy)"' $OUT/details-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
  grep -iE 'stall|warp cycles per issued' $OUT/details-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | head -12
  python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/sass-$k.csv 100 > $OUT/sass-segments-$k.txt; head -40 $OUT/sass-segments-$k.txt | cut -c1-160
  rm -f $OUT/$k.ncu-rep; gzip $OUT/sass-$k.csv
done
