#!/bin/bash
# session 24 call 6 (76b961c's templates, --templates .gpu/tpl-76b961c): ncu of GDN's narrow state pass state_n
# (B1 T32768 H16 bf16): SASS-level stall samples by window of 100 instructions (sass_segments.py of the
# gpu-h200-bgw record), for the next session's plan of that chain
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 240 ncu -k regex:'_state_n$' -c 1 --set full --import-source no -o $OUT/sn $S bench --backend cuda --dtype bf16 --templates .gpu/tpl-76b961c dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -1 $OUT/ncu.log
ncu -i $OUT/sn.ncu-rep --page details --csv > $OUT/details.csv 2>&1
ncu -i $OUT/sn.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Compute \(SM\) Throughput|DRAM Throughput|Executed Ipc Active|L2 Hit Rate)"' $OUT/details.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
grep -iE 'stall|warp cycles per issued' $OUT/details.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | head -30
python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/sass.csv 100 > $OUT/sass-segments.txt; cat $OUT/sass-segments.txt | cut -c1-200
rm -f $OUT/*.ncu-rep
gzip $OUT/sass.csv
