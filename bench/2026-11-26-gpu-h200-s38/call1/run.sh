#!/bin/bash
# session 38 call 1: the split forward with an erase (HD's body as the segment pass: the value rows from zero and the
# segment's transition rows, then fused90_scan, then fused90 from each segment's start). Checks on the GPU (GDN
# K = V = 128 with T = 4096, DeltaNet K = V = 64, the decay-free K = 128 V = 64 fixture, GDN K = 128 V = 64 and
# K = V = 64), compute-sanitizer on the fixture, then every forward variant at the long shapes, and fused90 against
# 38b3b9b's templates at B8 (the split mode's registers in HD)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s37
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
G=dsl/families/gated_deltanet.yaml
F=tests/fixtures/specs/emu_split_delta.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 120 $S check --backend cuda --dtype bf16 --no-bwd $G > $OUT/check-gdn.txt 2>&1
echo "check gdn rc=$?"; grep -E "split|comparisons" $OUT/check-gdn.txt | grep -E "FAIL|comparisons|T=4096"
timeout 150 $S check --backend cuda --dtype bf16 --no-bwd --quick $R/deltanet_k64.yaml $F $R/gdn_k128v64.yaml $G64 > $OUT/check-quick.txt 2>&1
echo "check quick rc=$?"; grep -E "FAIL|comparisons" $OUT/check-quick.txt
for t in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $t $S check --backend cuda --dtype bf16 --quick --no-bwd $F > $OUT/$t.txt 2>&1
  echo "$t rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/$t.txt
done
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
run 1 $G "--B 1 --T 32768 --H 16" new
run 1 $G "--B 2 --T 16384 --H 16" new
run 1 $G "--B 2 --T 4096 --H 16" new
run 1 $G "--B 1 --T 4096 --H 16" new
run 1 $G64 "--B 1 --T 32768 --H 32" new
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 16" "new 38b3b9b"; done
run 1 $G64 "--B 8 --T 4096 --H 32" "new 38b3b9b"
