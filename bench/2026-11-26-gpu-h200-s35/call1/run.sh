#!/bin/bash
# session 35 call 1: where GDN's forward spends its time at B8 T4096 H16 (bf16): ncu --set full with SASS source
# counters of prep_fused and fused90 (one launch each, 8c039aa); ssmc's bench rows; fla's chunk_gated_delta_rule
# (fla_gdn.py of the cpasync record) and its kernels one by one (fla_gdn_stages.py) in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
mkdir -p $OUT/r
for k in prep_fused fused90; do
  timeout 150 ncu -k regex:"bf16_${k}\$" -c 1 --set full --import-source no -o $OUT/r/$k $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/r/ncu-$k.log 2>&1
  echo "ncu $k rc=$?"
  ncu -i $OUT/r/$k.ncu-rep --page details > $OUT/r/$k-details.txt 2>&1
  ncu -i $OUT/r/$k.ncu-rep --page source --csv --print-source sass > $OUT/r/$k-sass.csv 2>&1
  grep -E "^  ssmc_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Block Limit|Executed Ipc A|Issue Slots" $OUT/r/$k-details.txt | head -20
done
timeout 200 $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 20 2>&1 | tee $OUT/bench.txt | grep -E "fwd"
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 2>&1 | tail -2 | tee $OUT/fla.txt
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-26-gpu-h200-s35/fla_gdn_stages.py 8,4096,16,128 1,32768,16,128 2>&1 | tail -30 | tee $OUT/fla-stages.txt
cd $OUT && tar -czf ncu.tgz r && rm -rf r
