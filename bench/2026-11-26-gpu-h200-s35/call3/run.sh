#!/bin/bash
# session 35 call 3: 1ff25ef (K Z issued beside the scores) against 70dd8a7 (call 2's T form) and 8c039aa; GDN at B2-B6
# (fused90 against the staged forward: where the pick should switch); checks and racecheck of the new form
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 240 $S check --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "FAIL|comparisons" $OUT/check-fwd.txt | tail -3
timeout 200 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|comparisons" $OUT/racecheck.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 150 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r dsl/families/gated_deltanet.yaml "--B 8 --T 4096 --H 16" "new 70dd8a7 8c039aa"; done
run 1 dsl/families/deltanet.yaml "--B 8 --T 4096 --H 16" "new 70dd8a7"
for b in 2 3 4 5 6; do run 1 dsl/families/gated_deltanet.yaml "--B $b --T 4096 --H 16" "new"; done
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 4,4096,16,128 2>&1 | tail -2 | tee $OUT/fla.txt
