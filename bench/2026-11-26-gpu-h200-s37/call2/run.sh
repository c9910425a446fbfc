#!/bin/bash
# session 37 call 2: prep_fused without the value tile (T's form reads none) against de6444a's templates; GDN K = V = 128
# H16 B8 twice (HD's stores from formed pointers vs 753e982), K = V = 64 H32 B8; forward+backward at K = V = 64 H32;
# HD on unseen shapes on the GPU (K = 128 V = 64: one consumer warpgroup, the state in shared memory; K = 32 and 48,
# V = 64); compute-sanitizer memcheck and racecheck on emu_bgw_delta (K = V = 64) and emu_f90_delta (K = 32 V = 128)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s37
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants [extra]
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 ${5:---no-bwd} $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? |fwd\+bwd|rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
G=dsl/families/gated_deltanet.yaml
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 16" "new de6444a 753e982"; done
for r in 1 2; do run $r $G64 "--B 8 --T 4096 --H 32" "new de6444a"; done
run 1 $G64 "--B 8 --T 4096 --H 32" "new" "--reps 10"
timeout 150 $S check --backend cuda --dtype bf16 --quick $R/gdn_k128v64.yaml $R/gdn_k32v64.yaml $R/gdn_k48v64.yaml > $OUT/check-unseen.txt 2>&1
echo "check unseen rc=$?"; grep -E "fused90|comparisons" $OUT/check-unseen.txt | grep -E "FAIL|comparisons"
timeout 100 $S check --backend cuda --dtype bf16 --no-bwd $G $G64 > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
for s in emu_bgw_delta emu_f90_delta; do for t in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $t $S check --backend cuda --quick --no-bwd tests/fixtures/specs/$s.yaml > $OUT/$t-$s.txt 2>&1
  echo "$t $s rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/$t-$s.txt
done; done
