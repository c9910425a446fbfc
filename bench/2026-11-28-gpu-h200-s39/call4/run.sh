#!/bin/bash
# session 39 call 4 (2b507c0: t_form's key copy committed before its wait): checks (--quick, with every partial
# chunk: GDN K = V = 128 and K = V = 64, the split fixture); GDN B1 T32768 H16 against 2fa35d3, B8 H16 and K = V = 64
# H32 B8 (2fa35d3 in call 3)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
G=dsl/families/gated_deltanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for s in $G $G64 tests/fixtures/specs/emu_split_delta.yaml; do
  timeout 60 $S check --backend cuda --no-bwd --quick $s >> $OUT/check.txt 2>&1; echo "check $(basename $s) rc=$?"
done
grep -E "FAIL|comparisons" $OUT/check.txt
run 1 $G "--B 1 --T 32768 --H 16" "new 2fa35d3"
run 1 $G "--B 8 --T 4096 --H 16" new
run 1 $G64 "--B 8 --T 4096 --H 32" new
run 2 $G "--B 1 --T 32768 --H 16" "new 2fa35d3"
