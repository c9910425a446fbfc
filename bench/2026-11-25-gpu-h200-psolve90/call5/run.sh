#!/bin/bash
# session 30 call 5: call 4's hdelta + hscan with hdelta's sm_90a form hdelta90 (wgmma, 128 threads, four blocks an SM) and hscan's loads 8
# chunks ahead, against 1c58f88's templates (hchain: one block walking a sequence's chunks)
# in the same call: GKA forward at B1 T32768, B4 and B8 T4096, B2 T4096; checks, sanitizers, ncu
D=bench/2026-11-25-gpu-h200-psolve90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-1c58f88
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 150 $S check --backend cuda --no-bwd $G > $OUT/check-gka.txt 2>&1
echo "check rc=$? $(grep '^check:' $OUT/check-gka.txt)"; grep FAIL $OUT/check-gka.txt | head -3; grep "bf16 \(T=4096\|varlen\).* fwd \(y\|state H\|x vs cheb\)" $OUT/check-gka.txt
timeout 120 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -3
timeout 120 compute-sanitizer --tool memcheck --print-limit 10 $S check --backend cuda --quick --no-bwd $G > $OUT/san-memcheck.txt 2>&1
echo "memcheck rc=$? $(grep '^check:' $OUT/san-memcheck.txt) $(tail -1 $OUT/san-memcheck.txt)"
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 --kernel-name kns=hdelta90 $S check --backend cuda --quick --no-bwd $G > $OUT/san-racecheck.txt 2>&1
echo "racecheck rc=$? $(grep '^check:' $OUT/san-racecheck.txt) $(tail -1 $OUT/san-racecheck.txt)"
run() { # shape [templates]
  timeout 120 $S bench --backend cuda --dtype bf16 --no-bwd ${2:+--templates $2} $G $1 --decode 1 --reps 5 2>&1 | grep -E " fwd(-[a-z0-9]+)? " | sed "s/^/round1 ${2:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}'
}
for sh in "--B 1 --T 32768 --H 16" "--B 8 --T 4096 --H 16" "--B 4 --T 4096 --H 16" "--B 2 --T 4096 --H 16"; do run "$sh"; run "$sh" $base; done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 100 ncu -k regex:"hdelta|hscan|psolve90|_prep$|_scan$|_out$" -c 6 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 1 --T 32768 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_|duration|throughput" $OUT/ncu.log | tail -18
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
