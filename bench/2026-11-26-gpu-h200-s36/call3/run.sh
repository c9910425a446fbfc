#!/bin/bash
# session 36 call 3: compute-sanitizer (memcheck, racecheck) on emu_f90_delta (fused90's bf16 form with an erase at
# K = 32) and GDN; ncu --set full with SASS source counters of fused90 (HD) and prep_fused at GDN B8 T4096 H16
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for t in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $t $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/$t.txt 2>&1
  echo "$t rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/$t.txt
done
timeout 60 compute-sanitizer --tool racecheck -k regex:"bf16_fused90\$" $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml --B 1 --T 256 --H 2 --decode 1 --reps 1 > $OUT/racecheck-gdn.txt 2>&1
echo "racecheck gdn rc=$?"; grep -E "RACECHECK SUMMARY" $OUT/racecheck-gdn.txt
mkdir -p $OUT/r
for k in fused90 prep_fused; do
  timeout 120 ncu -k regex:"bf16_${k}\$" -c 1 --set full --import-source no -o $OUT/r/$k $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/r/ncu-$k.log 2>&1
  echo "ncu $k rc=$?"
  ncu -i $OUT/r/$k.ncu-rep --page details > $OUT/$k-details.txt 2>&1
  ncu -i $OUT/r/$k.ncu-rep --page source --csv --print-source sass > $OUT/$k-sass.csv 2>&1
  grep -E "^  ssmc_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Executed Ipc A|Issue Slots" $OUT/$k-details.txt | head -12
done
rm -rf $OUT/r
gzip $OUT/*-sass.csv
