#!/bin/bash
# session 33 call 1 (5abfafd): where psolve90, gsolve90 and sgrad90 spend their cycles: ncu --set full with SASS
# source counters (stall reasons per instruction), one launch each at B2 T4096 H16; clocks under load
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
(sleep 20; nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader) >> $OUT/env.txt &
timeout 60 $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 20 --no-bwd 2>&1 | grep -E " fwd " | tee $OUT/bench.txt
wait
cat $OUT/env.txt
mkdir -p $OUT/r
for k in psolve90 gsolve90 sgrad90; do
  timeout 150 ncu -k regex:"_${k}$" -c 1 --set full --import-source no -o $OUT/r/$k $S bench --backend cuda --dtype bf16 $G --B 2 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/r/ncu-$k.log 2>&1
  echo "ncu $k rc=$?"
  ncu -i $OUT/r/$k.ncu-rep --page details > $OUT/r/$k-details.txt 2>&1
  ncu -i $OUT/r/$k.ncu-rep --page source --csv --print-source sass > $OUT/r/$k-sass.csv 2>&1
  echo "source rc=$? $(wc -l < $OUT/r/$k-sass.csv)"
  grep -E "Duration|Warp Cycles Per Issued|Issue Slots Busy|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Stall|stall" $OUT/r/$k-details.txt | head -20
done
cd $OUT && tar -czf ncu.tgz r && rm -rf r
