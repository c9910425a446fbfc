#!/bin/bash
# session 35 call 2: fused90's T form (70dd8a7) against 8c039aa's templates (.gpu/tpl-8c039aa): GDN and DeltaNet checks
# on the GPU (forward with fused90, and with the backward: the keep form), compute-sanitizer on emu_f90_delta, bench
# rows (two rounds), ncu stage times, fla's chunk_gated_delta_rule in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 240 $S check --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
timeout 200 $S check --backend cuda --dtype bf16 --quick dsl/families/gated_deltanet.yaml > $OUT/check-bwd.txt 2>&1
echo "check bwd rc=$?"; grep -E "FAIL|comparisons" $OUT/check-bwd.txt | tail -3
timeout 200 compute-sanitizer --tool memcheck $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|comparisons" $OUT/memcheck.txt
timeout 200 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|comparisons" $OUT/racecheck.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 150 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r dsl/families/gated_deltanet.yaml "--B 8 --T 4096 --H 16" "new 8c039aa"; done
run 1 dsl/families/deltanet.yaml "--B 8 --T 4096 --H 16" "new 8c039aa"
run 1 dsl/families/gated_deltanet.yaml "--B 4 --T 4096 --H 16" "new 8c039aa"
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 2>&1 | tail -1 | tee $OUT/fla.txt
timeout 200 ncu --metrics gpu__time_duration.sum --csv -k regex:"bf16_(prep_fused|fused90)\$" $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.csv 2>/dev/null
grep -oE "(prep_fused|fused90)\",[^\n]*" $OUT/ncu.csv | awk -F'","' '{print $1, $NF}' | tail -4
