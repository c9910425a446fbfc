#!/bin/bash
# session 33 call 3 (f243154): ncu of the pipelined psolve90 (source counters at B2 T4096, durations of the three
# solve stages at B8), compute-sanitizer on psolve90 and xsolve90 (call 2 ran out of time before them)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
mkdir -p $OUT/r
timeout 150 ncu -k regex:"_psolve90$" -c 1 --set full --import-source no -o $OUT/r/psolve90 $S bench --backend cuda --dtype bf16 $G --B 2 --T 4096 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/r/ncu-full.log 2>&1
echo "ncu full rc=$?"
ncu -i $OUT/r/psolve90.ncu-rep --page source --csv --print-source sass > $OUT/r/psolve90-sass.csv 2>&1
ncu -i $OUT/r/psolve90.ncu-rep --page details > $OUT/r/psolve90-details.txt 2>&1
grep -E "Duration|Issue Slots Busy|Compute \(SM\) Throughput|Warp Cycles Per Issued" $OUT/r/psolve90-details.txt
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
timeout 120 ncu -k regex:"_(psolve90|xsolve90|gcheb90)$" -c 12 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/r/ncu-b8.log 2>&1
echo "ncu b8 rc=$?"; grep -E "ssmc_.*CC 9|duration|throughput|gmma" $OUT/r/ncu-b8.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//' | awk '{print $1, $NF}' | tr '\n' ' '; echo
for k in psolve90 xsolve90; do for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --kernel-name kns=$k $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/r/san-$tool-$k.txt 2>&1
  echo "$k $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/san-$tool-$k.txt | tail -1) $(grep '^check:' $OUT/r/san-$tool-$k.txt)"
done; done
cd $OUT && tar -czf ncu.tgz r && rm -rf r
