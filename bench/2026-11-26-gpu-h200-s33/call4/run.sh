#!/bin/bash
# session 33 call 4: sgrad's <dH_L, H_L> and ps_split with eight loads in flight, against f243154 (call 2's) in the
# same call: checks, GKA fwd+bwd at B8 T4096 (two rounds), ncu of the backward's stages, compute-sanitizer
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -5
for f in emu_solve_bf cuda_solve_delta cuda_solve_wide; do
  timeout 120 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
run() { # name [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 ${2:+--templates $2} $G --B 8 --T 4096 --H 16 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-saved)? " | sed "s/^/$1 /" | tee -a $OUT/bench.txt | awk '{print $1, $3, $5, $6}'
}
for i in 1 2; do run new; run base .gpu/tpl-f243154; done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 120 ncu -k regex:"_(gsolve90|sgrad90|gcheb90|bgrad|bprep|bval|hadj|bhdelta90|bhscan)$" -c 9 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_.*CC 9|duration|throughput" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//' | awk '{print $1, $NF}' | tr '\n' ' '; echo
for k in sgrad90 gsolve90 gcheb90; do for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --kernel-name kns=$k $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-$tool-$k.txt 2>&1
  echo "$k $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool-$k.txt | tail -1) $(grep '^check:' $OUT/san-$tool-$k.txt)"
done; done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt ncu.log && rm -f check-*.txt san-*.txt ncu.log
