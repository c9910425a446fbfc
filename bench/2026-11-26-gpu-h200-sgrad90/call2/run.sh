#!/bin/bash
# session 32 call 2: the global read-modify-writes and tile loads of gsolve90, sgrad90 and ps_split batched (loads before any
# store), sgrad's scalar gradients by all threads after a scan, gsolve90 with x from shared memory and D's lower blocks, against
# call 1's templates (81bd626) in the same call: checks, GKA fwd+bwd at B8 T4096 and B1 T32768, ncu, compute-sanitizer
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-81bd626
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -5
for f in emu_solve_bf cuda_solve_delta bwd_solve_key; do
  timeout 120 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
run() { # shape [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 ${2:+--templates $2} $G $1 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)? " | sed "s/^/${2:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}' | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16//'
}
for sh in "--B 8 --T 4096 --H 16" "--B 1 --T 32768 --H 16"; do run "$sh"; run "$sh" $base; done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 100 ncu -k regex:"_(gsolve90|sgrad90|gcheb90|xsolve90|psolve90|bprep|bval|bgrad|hadj|bhdelta90|bhscan)$" -c 11 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_.*CC 9|duration|throughput|registers|warps_active" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//'
for k in sgrad90 gsolve90; do for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --kernel-name kns=$k $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-$tool-$k.txt 2>&1
  echo "$k $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool-$k.txt | tail -1) $(grep '^check:' $OUT/san-$tool-$k.txt)"
done; done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
