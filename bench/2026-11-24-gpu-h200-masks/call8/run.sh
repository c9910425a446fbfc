#!/bin/bash
# session 19 call 8: the lo part unrounded in mm_acc only (mm_tiles_f rounds it again: KDA's state passes
# spilled at sm_80); working tree against d8427d6; GDN bf16 H16, one round; check GDN
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
for sh in "--B 8 --T 4096" "--B 1 --T 32768"; do
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml $sh --H 16 --decode 1 --reps 10 2>&1 | grep -E " (bwd|bwd-narrow|fwd\+bwd) " | sed "s/^/$(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $3, $4, $5, $8}'
  done
done
timeout 75 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gated_deltanet.txt 2>&1; echo "check rc=$?"; grep "^check:" $OUT/check-gated_deltanet.txt
