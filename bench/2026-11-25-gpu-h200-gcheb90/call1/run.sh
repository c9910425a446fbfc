#!/bin/bash
# session 31 call 1: the backward's Chebyshev on dx split out of gsolve (gcheb; on sm_90a gcheb90, psolve90's body)
# and H's chain in the backward chunk-parallel (bhdelta[90] + bhscan in place of hstate), against 405cc97's templates
# (gsolve with its mma.sync Chebyshev, hstate walking the chunks) in the same call: GKA forward + backward at B8 T4096
# and B1 T32768 H16; checks with the backward (GKA, emu_solve_bf, the new cuda_solve_delta), sanitizers, ncu per stage
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-405cc97
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 150 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -3; grep "bf16 T=4096 .*bwd d\(q\|k\|g\|beta\) " $OUT/check-gka-bwd.txt | head -8
for f in emu_solve_bf cuda_solve_delta; do
  timeout 100 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
timeout 60 compute-sanitizer --tool memcheck --print-limit 10 $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-memcheck.txt 2>&1
echo "memcheck rc=$? $(grep '^check:' $OUT/san-memcheck.txt) $(tail -1 $OUT/san-memcheck.txt)"
for k in gcheb90 bhdelta90 bhscan; do
  timeout 60 compute-sanitizer --tool racecheck --print-limit 10 --kernel-name kns=$k $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-racecheck-$k.txt 2>&1
  echo "racecheck $k rc=$? $(grep '^check:' $OUT/san-racecheck-$k.txt) $(tail -1 $OUT/san-racecheck-$k.txt)"
done
run() { # shape [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 ${2:+--templates $2} $G $1 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)? " | sed "s/^/round1 ${2:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}'
}
for sh in "--B 8 --T 4096 --H 16" "--B 1 --T 32768 --H 16"; do run "$sh"; run "$sh" $base; done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 120 ncu -k regex:"_(bhdelta90|bhscan|xsolve90|fprep|fscan|bprep|bscan|bval|bgrad|brows|gcheb90|gsolve|hadj|sgrad|breduce)$" -c 15 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_|duration" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//' | paste - - | awk '{print $1, $(NF-1), $NF}' | head -20
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
