#!/bin/bash
# session 33 call 2: psolve90's rounds pipelined (the next round's S beside the Chebyshev step, the mask between the
# x H0 products, branch-free), against 5abfafd (base) and the same without the bf16 right-hand side's prefetch
# (nobpre), in the same call: checks, GKA fwd and fwd+bwd at B8 T4096 and B1 T32768, ncu, compute-sanitizer
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -5
grep -E "x vs|T=4096" $OUT/check-gka-bwd.txt | head -6
for f in emu_solve_bf cuda_solve_delta bwd_solve_key bwd_solve_short cuda_solve_wide; do
  timeout 120 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
run() { # shape name [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 ${3:+--templates $3} $G $1 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)? " | sed "s/^/$2 /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $5, $6, $7}' | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16//'
}
for sh in "--B 8 --T 4096 --H 16" "--B 1 --T 32768 --H 16"; do run "$sh" new; run "$sh" base .gpu/tpl-5abfafd; run "$sh" nobpre .gpu/tpl-nobpre; done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
for k in psolve90 xsolve90 gcheb90; do
  timeout 100 ncu -k regex:"_${k}$" -c 1 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu-$k.log 2>&1
  echo "ncu $k rc=$? $(grep -E 'duration|throughput|registers|gmma' $OUT/ncu-$k.log | awk '{print $1, $NF}' | tr '\n' ' ')"
done
mkdir -p $OUT/r
timeout 150 ncu -k regex:"_psolve90$" -c 1 --set full --import-source no -o $OUT/r/psolve90 $S bench --backend cuda --dtype bf16 $G --B 2 --T 4096 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/r/ncu-full.log 2>&1
ncu -i $OUT/r/psolve90.ncu-rep --page source --csv --print-source sass > $OUT/r/psolve90-sass.csv 2>&1
ncu -i $OUT/r/psolve90.ncu-rep --page details > $OUT/r/psolve90-details.txt 2>&1
grep -E "Duration|Issue Slots Busy|Compute \(SM\) Throughput|Warp Cycles Per Issued" $OUT/r/psolve90-details.txt
for k in psolve90 xsolve90; do for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --kernel-name kns=$k $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-$tool-$k.txt 2>&1
  echo "$k $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool-$k.txt | tail -1) $(grep '^check:' $OUT/san-$tool-$k.txt)"
done; done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt ncu-*.log r && rm -rf check-*.txt san-*.txt ncu-*.log r
