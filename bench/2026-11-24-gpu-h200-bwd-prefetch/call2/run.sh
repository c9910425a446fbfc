#!/bin/bash
# session 15 call 2: ncu detail (stall reasons, source counters) of Mamba-2's bgrad, bprep and bval (tree at 887a5d5)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
$S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 >/dev/null 2>&1 # warm the cache
for k in bgrad bprep bval; do
timeout 150 ncu -k regex:_$k -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --section SourceCounters --section MemoryWorkloadAnalysis --section InstructionStats $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-m2-$k.txt 2>&1
grep -E "Duration|Throughput|Stall|Warp Cycles|Issued Ipc|Achieved Occupancy|Registers|Theoretical Occ|Block Limit|stall|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Executed Ipc|One or More|No Eligible" $OUT/ncu-m2-$k.txt | head -60
echo ----
done
