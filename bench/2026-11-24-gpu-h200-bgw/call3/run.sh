#!/bin/bash
# session 22 call 3: bgrad's value loop with its tiles prefetched into L2 at the block's start (rows_l2): the tree
# (BGW + prefetch), tpl-nobgwpf (mma.sync value loop + prefetch), 6aade2b; GDN and Mamba-2 B8 T4096 H16 bf16
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep bwd
  done
}
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-nobgwpf .gpu/tpl-6aade2b"
run 1 "--B 8 --T 4096" dsl/families/mamba2.yaml "tree .gpu/tpl-nobgwpf .gpu/tpl-6aade2b"
