#!/bin/bash
# session 33 call 5 (9f2c81f): ncu --set full with SASS source counters of gsolve90, sgrad90 and bgrad (B2 T4096 H16)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
mkdir -p $OUT/r
for k in gsolve90 sgrad90 bgrad; do
  timeout 150 ncu -k regex:"_${k}$" -c 1 --set full --import-source no -o $OUT/r/$k $S bench --backend cuda --dtype bf16 $G --B 2 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/r/ncu-$k.log 2>&1
  echo "ncu $k rc=$?"
  ncu -i $OUT/r/$k.ncu-rep --page details > $OUT/r/$k-details.txt 2>&1
  ncu -i $OUT/r/$k.ncu-rep --page source --csv --print-source sass > $OUT/r/$k-sass.csv 2>&1
  grep -E "Duration|Issue Slots Busy|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy" $OUT/r/$k-details.txt | head -6
done
cd $OUT && tar -czf ncu.tgz r && rm -rf r
