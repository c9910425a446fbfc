#!/bin/bash
# NOT RUN (for the next session; ~200 s of device time). Pack on the workstation:
#   scripts/gpu-pack.sh && mkdir -p .gpu/tpl-ilp && git archive 670e08e templates | tar -x -C .gpu/tpl-ilp --strip-components=1 &&
#   (cd .gpu/tpl-ilp && patch -p2 < ../../bench/2026-11-29-gpu-h200-s45/next/ilp.diff) &&
#   rm -rf .gpu-pack && mkdir -p .gpu-pack && tar -cJf .gpu-pack/gpu.tar.xz .gpu
# and carry .gpu-pack (the diff is against 670e08e's templates; the tree's dq~ and dG k diagonal passes were folded into
# one lambda after it, same code). Times next/ilp.diff (bgrad's diagonal-block passes with C / 16 independent sums a thread)
# against the tree: GLA and KDA bf16 B8 T4096 H16 bwd-saved, two rounds; then their quick CUDA checks under it.
# Keep it only if faster in both rounds.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for f in gla kda; do for v in tree tpl-ilp; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved --reps 10 2>&1 | grep -E " bwd-saved |rror" | sed "s|^|round$r $v |" | tee -a $OUT/ab.txt |
    awk '{print $1, $2, $4, $5, $6, $8}'
done; done; done
for f in gla kda; do
  timeout 120 $S check --backend cuda --quick --templates .gpu/tpl-ilp dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/check-$f.txt)"
done
