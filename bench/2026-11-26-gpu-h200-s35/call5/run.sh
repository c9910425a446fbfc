#!/bin/bash
# session 35 call 5: the session's last templates (5df94d1) against tpl-pfqk (the same with the next chunk's key and
# query rows also prefetched into L2 beside T's and the value's), GDN and DeltaNet B8 T4096 H16, two rounds
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 120 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-fused90 " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r dsl/families/gated_deltanet.yaml "--B 8 --T 4096 --H 16" "new pfqk"; done
run 1 dsl/families/deltanet.yaml "--B 8 --T 4096 --H 16" "new pfqk"
timeout 150 $S check --backend cuda --dtype bf16 --no-bwd --templates .gpu/tpl-pfqk dsl/families/gated_deltanet.yaml > $OUT/check-pfqk.txt 2>&1
echo "check pfqk rc=$?"; grep -E "FAIL|comparisons" $OUT/check-pfqk.txt | tail -2
