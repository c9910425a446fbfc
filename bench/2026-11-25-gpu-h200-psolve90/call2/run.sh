#!/bin/bash
# session 30 call 2: psolve90 with the decay mask folded (P += S K right behind x H0 where every |hb_t| < 40) against
# call 1's psolve90 (.gpu/tpl-fe18646) in the same call; checks, sanitizers on psolve90 alone, hybrid-model-factory's
# forward in the same call (given longer: call 1's run printed nothing in 150 s), ncu
D=bench/2026-11-25-gpu-h200-psolve90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-fe18646
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in $G tests/fixtures/specs/emu_solve_bf.yaml; do
  n=$(basename $s .yaml)
  timeout 150 $S check --backend cuda --no-bwd $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "bf16 \(T=4096\|edges\).* fwd \(y\|x vs cheb\)" $OUT/check-$n.txt
done
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 --kernel-name kns=psolve90 $S check --backend cuda --quick --no-bwd $G > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$? $(grep '^check:' $OUT/san-$tool.txt) $(tail -1 $OUT/san-$tool.txt)"
done
run() { # round shape [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 --no-bwd ${3:+--templates $3} $G $2 --decode 1 --reps 5 2>&1 | grep -E " fwd(-[a-z0-9]+)? " | sed "s/^/round$1 ${3:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}'
}
for r in 1 2; do
  run $r "--B 8 --T 4096 --H 16"
  run $r "--B 8 --T 4096 --H 16" $base
done
run 1 "--B 1 --T 32768 --H 16"
run 1 "--B 1 --T 32768 --H 16" $base
PYTHONPATH=.fla:.hmf timeout 250 python3 -u $D/hmf_fwd.py 8,4096,16,128 1,32768,16,128 > $OUT/hmf.txt 2>&1
echo "hmf rc=$?"; tail -4 $OUT/hmf.txt
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__cycles_active.avg
timeout 100 ncu -k regex:"psolve90|hchain|_prep$|_scan$|_out$" -c 5 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_|duration|gmma|throughput" $OUT/ncu.log | tail -20
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
