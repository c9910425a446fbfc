#!/bin/bash
# session 45 call 4: diag_scores' diagonal pairs a warp a pair (lanes over the keys; was a thread a pair) and bgrad's
# dk column diagonal pass with one exponential a pair (the tree) against 77af9b4 (.gpu/tpl-77af9b4): GLA and KDA bf16
# fwd, bwd-saved, fwd+bwd-saved at B8 T4096 H16 (two rounds) and B1 T32768 H16 (one); then the quick CUDA check of
# GLA, KDA and the chunk-64 fixtures.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for f in gla kda; do for shape in "--B 8 --T 4096" "--B 1 --T 32768"; do for v in tree tpl-77af9b4; do
  [ $r = 2 ] && [ "$shape" = "--B 1 --T 32768" ] && continue
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml $shape --H 16 \
    --rows fwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " (fwd|bwd-saved|fwd\+bwd-saved) |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done; done; done
for f in dsl/families/gla.yaml dsl/families/kda.yaml bench/2026-11-29-gpu-h200-s45/emu/*.yaml; do
  n=$(basename $f .yaml)
  timeout 120 $S check --backend cuda --quick $f > $OUT/check-$n.txt 2>&1; echo "$n rc=$? $(tail -1 $OUT/check-$n.txt)"
done
