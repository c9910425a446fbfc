#!/bin/bash
# session 30 call 1: psolve90 (psolve's sm_90a form: one warpgroup a chunk, the Chebyshev rounds on wgmma with the
# iterate in registers) in GKA's forward; checks (with and without the backward), sanitizers, the forward at the issue
# shapes against the session start's templates (.gpu/tpl-e82ee08) and hybrid-model-factory's in the same call, ncu
D=bench/2026-11-25-gpu-h200-psolve90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-e82ee08
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
git log -1 --format=%H >> $OUT/env.txt 2>/dev/null
timeout 150 $S check --backend cuda --no-bwd $G > $OUT/check-gka.txt 2>&1
echo "check rc=$? $(grep '^check:' $OUT/check-gka.txt)"; grep FAIL $OUT/check-gka.txt | head -3; grep "bf16 T=4096.* fwd\(-solve\)\? \(y\|x vs cheb\)" $OUT/check-gka.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -3
for tool in memcheck racecheck; do
  timeout 130 compute-sanitizer --tool $tool --print-limit 10 --kernel-name regex:psolve90 $S check --backend cuda --quick --no-bwd $G > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$? $(grep '^check:' $OUT/san-$tool.txt) $(tail -1 $OUT/san-$tool.txt)"
done
run() { # round spec shape [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 --no-bwd ${4:+--templates $4} $2 $3 --decode 1 --reps 5 2>&1 | grep -E " fwd(-[a-z0-9]+)? " | sed "s/^/round$1 ${4:+base }$(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $5, $7, $9}'
}
run 1 $G "--B 8 --T 4096 --H 16"
run 1 $G "--B 8 --T 4096 --H 16" $base
run 1 $G "--B 1 --T 32768 --H 16"
run 1 $G "--B 4 --T 4096 --H 16"
run 2 $G "--B 8 --T 4096 --H 16"
PYTHONPATH=.fla:.hmf timeout 150 python3 -u $D/hmf_fwd.py 8,4096,16,128 1,32768,16,128 2>&1 | tee $OUT/hmf.txt | tail -3
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
timeout 100 ncu -k regex:"psolve90|hchain|_prep$|_scan$|_out$" -c 5 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_|duration|gmma|throughput" $OUT/ncu.log | tail -24
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
