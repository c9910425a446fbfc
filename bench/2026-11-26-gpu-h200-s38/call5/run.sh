#!/bin/bash
# session 38 call 5 (1fb0b13's binary and templates as `new`): two variants of the split forward with an erase at GDN
# B1 T32768 H16: s200 (split=200: 16 segments, the segment pass in four waves of 32 chunks, fused90_split in two) and
# nov (the transition's blocks load no value tile); DeltaNet K = V = 128 B1 T32768 H16 for the record
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-(split|narrow) |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r $G "--B 1 --T 32768 --H 16" "new s200 nov"; done
run 1 dsl/families/deltanet.yaml "--B 1 --T 32768 --H 16" new
timeout 60 $S check --backend cuda --dtype bf16 --no-bwd --quick --templates .gpu/tpl-nov tests/fixtures/specs/emu_split_delta.yaml > $OUT/check-nov.txt 2>&1
echo "check nov rc=$?"; grep -E "FAIL|comparisons" $OUT/check-nov.txt
