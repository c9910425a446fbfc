#!/bin/bash
# call 7: the tree (bgrad's wgmma loop without Z_L's loads: Z_L . dZ_L = e^{b_L} Z0 . dZ_L + kd' u . dZ_L) against
# 553569b (.gpu/tpl-553569b); the NVRTC cache filled on the workstation (NVRTC 13.0, sm_90a) where its keys match
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in .gpu/tpl-553569b new; do
  t=(); [ $v = new ] || t=(--templates $v)
  for f in gated_deltanet mamba2; do
  [ $f = mamba2 ] && [ $r = 2 ] && continue
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved --reps 10 2>&1 | grep -E " bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
timeout 60 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "quick gdn rc=$? $(tail -n1 /tmp/q.txt)" | tee $OUT/checks.txt; grep -E "FAIL|edges .*bwd-saved.* dg " /tmp/q.txt | head -5 >> $OUT/checks.txt
