#!/bin/bash
# session 37 call 4: HD's T rows by cp.async a chunk ahead (9a7f21c) against 934f534's templates: GDN K = V = 128
# H16 B8 and K = V = 64 H32 B8, two rounds each, DeltaNet K = V = 64; forward checks; compute-sanitizer memcheck and
# racecheck on emu_f90_delta and emu_bgw_delta
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
G=dsl/families/gated_deltanet.yaml
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 16" "new 934f534"; done
for r in 1 2; do run $r $G64 "--B 8 --T 4096 --H 32" "new 934f534"; done
run 1 bench/2026-11-26-gpu-h200-s37/deltanet_k64.yaml "--B 8 --T 4096 --H 32" "new 934f534"
timeout 100 $S check --backend cuda --dtype bf16 --quick --no-bwd $G $G64 > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons"
for s in emu_bgw_delta emu_f90_delta; do for t in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $t $S check --backend cuda --quick --no-bwd tests/fixtures/specs/$s.yaml > $OUT/$t-$s.txt 2>&1
  echo "$t $s rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/$t-$s.txt; tail -c 20000 $OUT/$t-$s.txt > $OUT/t && mv $OUT/t $OUT/$t-$s.txt
done; done
