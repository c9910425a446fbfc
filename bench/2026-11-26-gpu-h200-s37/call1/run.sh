#!/bin/bash
# session 37 call 1: fused90's bf16 form with an erase (HD) at V = 64 (7a3bbe2: one consumer warpgroup, two blocks an
# SM, the state the register operand A at K <= 64) against 753e982's templates (the tf32 T form there): GDN and
# DeltaNet K = V = 64 H32 B8, GDN B1 / B2 / B4 H32 (the pick), GDN K = V = 128 H16 B8 and the unseen K = 64 V = 128;
# fla's chunk_gated_delta_rule at K = V = 64 H32; GDN K = V = 64 forward check on the GPU; ncu stage times
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 60 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
D64=bench/2026-11-26-gpu-h200-s37/deltanet_k64.yaml
G=dsl/families/gated_deltanet.yaml
U=bench/2026-11-23-gpu-h200-staged/unseen-specs/gated_deltanet_64_128_64.yaml
for r in 1 2; do run $r $G64 "--B 8 --T 4096 --H 32" "new 753e982"; done
run 1 $D64 "--B 8 --T 4096 --H 32" "new 753e982"
for b in 1 2 4; do run 1 $G64 "--B $b --T 4096 --H 32" "new"; done
run 1 $G "--B 8 --T 4096 --H 16" "new 753e982"
run 1 $U "--B 8 --T 4096 --H 16" "new 753e982"
PYTHONPATH=.fla timeout 240 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,32,64 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
timeout 100 $S check --backend cuda --dtype bf16 --quick --no-bwd $G64 $D64 > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
timeout 60 ncu --metrics gpu__time_duration.sum --csv -k regex:"bf16_(prep_fused|fused90)\$" $S bench --backend cuda --dtype bf16 --no-bwd $G64 --B 8 --T 4096 --H 32 --decode 1 --reps 1 > $OUT/ncu.csv 2>/dev/null
grep -oE "(prep_fused|fused90)\",[^\n]*" $OUT/ncu.csv | awk -F'","' '{print $1, $NF}' | tail -4
