#!/bin/bash
# session 20 call 2: bgrad's value-loop products sharing fragments (sq_acc; tree, SQ_UNROLL 1) against
# 10e6a93 (mm_acc) and tpl-sq2 (sq_acc with two k steps unrolled on sm_90), bf16 H16
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
run() { # round shape spec variants...
  local r=$1 sh=$2 sp=$3; shift 3
  for v in "$@"; do
    t=(); [ $v = tree ] || t=(--templates .gpu/$v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $sp $sh --H 16 --decode 1 --reps 10 2>&1 | grep -E " (bwd|bwd-narrow|fwd\+bwd) " | sed "s/^/round$r $v /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml tree tpl-10e6a93 tpl-sq2
run 1 "--B 8 --T 4096" dsl/families/mamba2.yaml tree tpl-10e6a93
run 2 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml tree tpl-10e6a93
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml tree tpl-10e6a93
cd $OUT && tar czf call2.tgz *.txt
