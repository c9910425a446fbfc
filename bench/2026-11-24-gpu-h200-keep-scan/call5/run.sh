#!/bin/bash
# session 23 call 5 (c20e4ed): ncu of GDN's bgrad (B8 T4096 H16 bf16, the producer form): SASS-level stall samples by
# window of 100 instructions (sass_segments.py of the gpu-h200-bgw record), to split the value loop from the post-loop products
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 200 ncu -k regex:'_bgrad$' -c 1 --set full --import-source no -o $OUT/bg $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -1 $OUT/ncu.log
ncu -i $OUT/bg.ncu-rep --page details --csv > $OUT/details.csv 2>&1
ncu -i $OUT/bg.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Compute \(SM\) Throughput|DRAM Throughput|Executed Ipc Active)"' $OUT/details.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/sass.csv 100 > $OUT/sass-segments.txt; cat $OUT/sass-segments.txt | cut -c1-200
rm -f $OUT/*.ncu-rep
gzip $OUT/sass.csv
