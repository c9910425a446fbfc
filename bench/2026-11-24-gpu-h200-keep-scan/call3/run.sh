#!/bin/bash
# session 23 call 3 (fc82b6b): ncu of GDN's forward prep (B8 T4096 H16 bf16; the staged forward's first launch):
# details and SASS-level stall samples (the gpu-h200-bgw record's sass_segments.py: sums over windows of 100 SASS instructions), to see where
# its 0.9 ms (locked clocks) go
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 200 ncu -k regex:'_prep$' -c 1 --set full --import-source no -o $OUT/prep $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -2 $OUT/ncu.log
ncu -i $OUT/prep.ncu-rep --page details --csv > $OUT/details.csv 2>&1
ncu -i $OUT/prep.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Executed Ipc Active|Block Limit [A-Za-z ]*)"' $OUT/details.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/sass.csv 100 > $OUT/sass-segments.txt; cat $OUT/sass-segments.txt
grep -iE "stall|warp cycles per|smsp__pcsamp" $OUT/details.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | head -30
rm -f $OUT/*.ncu-rep
gzip $OUT/sass.csv
