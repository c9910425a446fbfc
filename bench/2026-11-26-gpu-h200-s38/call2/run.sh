#!/bin/bash
# session 38 call 2 (the split forward's pass in its own entry, fused90_split: fused90 as before): GDN B1 T32768 H16
# beside fla's forward in the same call; fused90 at B8 against 38b3b9b's templates; the pick's crossover (split vs
# fused90) at T4096: GDN H16 B3, B4, K = V = 64 H32 B2, B4; checks of GDN (with T = 4096) and DeltaNet
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s38
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
G=dsl/families/gated_deltanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r $G "--B 1 --T 32768 --H 16" new; done
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 16" "new 38b3b9b"; done
run 1 $G "--B 3 --T 4096 --H 16" new
run 1 $G "--B 4 --T 4096 --H 16" new
run 1 $G64 "--B 2 --T 4096 --H 32" new
run 1 $G64 "--B 4 --T 4096 --H 32" new
PYTHONPATH=.fla timeout 200 python3 $R/fla_gdn_fwd.py 1,32768,16,128 > $OUT/fla.txt 2>&1; tail -2 $OUT/fla.txt
timeout 100 $S check --backend cuda --dtype bf16 --no-bwd $G > $OUT/check-gdn.txt 2>&1
echo "check gdn rc=$?"; grep -E "split|comparisons" $OUT/check-gdn.txt | grep -E "FAIL|comparisons|T=4096"
timeout 60 $S check --backend cuda --dtype bf16 --no-bwd --quick dsl/families/deltanet.yaml > $OUT/check-dn.txt 2>&1
echo "check deltanet rc=$?"; grep -E "FAIL|comparisons" $OUT/check-dn.txt
