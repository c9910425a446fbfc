#!/bin/bash
# session 32 call 4: psolve90's body reading its right-hand side by ld.global.ca (ldg_pair) in the rounds, which ptxas
# may then issue ahead of the rounds' shared-memory stores (psolve90, xsolve90, gcheb90), against f75e9e6's templates
# (call 2's) in the same call: checks, GKA forward and fwd+bwd at B8 T4096 and B1 T32768 (two rounds), ncu of the three
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-f75e9e6
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -5
for f in emu_solve_bf cuda_solve_delta; do
  timeout 120 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
run() { # shape [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 ${2:+--templates $2} $G $1 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-saved)? " | sed "s/^/${2:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}' | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16//'
}
for r in 1 2; do for sh in "--B 8 --T 4096 --H 16" "--B 1 --T 32768 --H 16"; do run "$sh"; run "$sh" $base; done; done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
timeout 100 ncu -k regex:"_(psolve90|xsolve90|gcheb90)$" -c 3 --metrics $M $S bench --backend cuda --dtype bf16 --no-bwd $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
timeout 100 ncu -k regex:"_(xsolve90|gcheb90)$" -c 2 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 >> $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_.*CC 9|duration|throughput|registers" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//'
timeout 120 compute-sanitizer --tool memcheck --kernel-name kns=gcheb90 $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-memcheck.txt 2>&1
echo "gcheb90 memcheck rc=$? $(grep -E 'ERROR SUMMARY' $OUT/san-memcheck.txt | tail -1) $(grep '^check:' $OUT/san-memcheck.txt)"
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
