#!/bin/bash
# session 35 call 4: fused90's T form at K = V = 64 with an erase (the working tree after 7a02da8: HF at V = 64 too,
# one block an SM, 187 registers) against 5dca133's templates (there the sm_80 form `fused`, two blocks an SM, fills
# the fused slot) and tpl-k64b2 (the same T form, two blocks an SM: 128 registers, 272 B spilled); checks of
# gdn_k64 (forward; with the backward: the keep form at V = 64) and racecheck of emu_bgw_delta; fla in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --dtype bf16 --no-bwd $G > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "FAIL|comparisons|T=4096.*fused90" $OUT/check-fwd.txt | tail -4
timeout 200 $S check --backend cuda --dtype bf16 --quick $G > $OUT/check-bwd.txt 2>&1
echo "check bwd rc=$?"; grep -E "FAIL|comparisons" $OUT/check-bwd.txt | tail -3
timeout 150 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_bgw_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|comparisons" $OUT/racecheck.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 120 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused|-fused90)? " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 32" "new 5dca133 k64b2"; done
run 1 $G "--B 2 --T 4096 --H 32" "new 5dca133 k64b2"
run 1 $G "--B 4 --T 4096 --H 32" "new 5dca133"
PYTHONPATH=.fla timeout 120 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,32,64 2>&1 | tail -1 | tee $OUT/fla.txt
