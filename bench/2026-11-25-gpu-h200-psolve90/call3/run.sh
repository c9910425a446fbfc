#!/bin/bash
# session 30 call 3: 45438e4: psolve90's x - x_{r-1} in float pairs, and the backward's xsolve on psolve90's body
# (xsolve90, sm_90a), against ee5148e's templates (bf16 pairs; xsolve on mma.sync) in the same call: GKA forward +
# backward at B8 T4096 H16, the forward at B1 T32768; checks with the backward and at 8 iterations, racecheck on
# xsolve90 alone, hybrid-model-factory's forward + backward in the same call
D=bench/2026-11-25-gpu-h200-psolve90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-ee5148e
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -3
timeout 100 $S check --backend cuda --quick tests/fixtures/specs/emu_solve_bf.yaml > $OUT/check-emu_solve_bf.txt 2>&1
echo "check emu_solve_bf rc=$? $(grep '^check:' $OUT/check-emu_solve_bf.txt)"; grep FAIL $OUT/check-emu_solve_bf.txt | head -3
timeout 100 $S check --backend cuda --quick --no-bwd --iters 8 $G > $OUT/check-gka-r8.txt 2>&1
echo "check r8 rc=$? $(grep '^check:' $OUT/check-gka-r8.txt)"; grep FAIL $OUT/check-gka-r8.txt | head -3
timeout 120 compute-sanitizer --tool racecheck --print-limit 10 --kernel-name kns=xsolve90 $S check --backend cuda --quick $G > $OUT/san-racecheck.txt 2>&1
echo "racecheck rc=$? $(grep '^check:' $OUT/san-racecheck.txt) $(tail -1 $OUT/san-racecheck.txt)"
run() { # round [templates]
  timeout 200 $S bench --backend cuda --dtype bf16 ${2:+--templates $2} $G --B 8 --T 4096 --H 16 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)? " | sed "s/^/round$1 ${2:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}'
}
run 1
run 1 $base
for t in "" $base; do
  timeout 150 $S bench --backend cuda --dtype bf16 --no-bwd ${t:+--templates $t} $G --B 1 --T 32768 --H 16 --decode 1 --reps 5 2>&1 | grep -E " fwd(-[a-z0-9]+)? " | sed "s/^/round1 ${t:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $9}'
done
PYTHONPATH=.fla:.hmf timeout 200 python3 -u $D/hmf_fwd.py bwd 8,4096,16,128 > $OUT/hmf.txt 2>&1
echo "hmf rc=$?"; tail -3 $OUT/hmf.txt
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
