#!/bin/bash
# session 36 call 1: fused90's bf16 form with an erase (HD, a638e1b) against 88463fe's templates (the tf32 T form) and
# a register split variant (.gpu/tpl-r112: producer 112 / consumers 200): GDN and DeltaNet bench rows, GDN B2..B6 (the
# pick), fla's chunk_gated_delta_rule, checks on the GPU, compute-sanitizer on emu_f90_delta, ncu stage times
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 100 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
G=dsl/families/gated_deltanet.yaml
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 16" "new 88463fe r112"; done
run 1 dsl/families/deltanet.yaml "--B 8 --T 4096 --H 16" "new 88463fe"
for b in 2 3 4 5 6; do run 1 $G "--B $b --T 4096 --H 16" "new"; done
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 2>&1 | tail -1 | tee $OUT/fla.txt
timeout 150 $S check --backend cuda --dtype bf16 --no-bwd $G dsl/families/deltanet.yaml > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
timeout 100 compute-sanitizer --tool memcheck $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|comparisons" $OUT/memcheck.txt
timeout 100 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|comparisons" $OUT/racecheck.txt
timeout 60 ncu --metrics gpu__time_duration.sum --csv -k regex:"bf16_(prep_fused|fused90)\$" $S bench --backend cuda --dtype bf16 --no-bwd $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.csv 2>/dev/null
grep -oE "(prep_fused|fused90)\",[^\n]*" $OUT/ncu.csv | awk -F'","' '{print $1, $NF}' | tail -4
