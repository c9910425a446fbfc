#!/bin/bash
# session 45 call 2: bgrad's per-key decay pair sums by 16-token blocks on the tensor cores (the tree) against
# 96aca45's scalar pair loops (.gpu/tpl-96aca45): GLA and KDA bf16 B8 T4096 H16 and B1 T32768 H16, bwd-saved and
# fwd+bwd-saved, two rounds; then the quick CUDA check of every built-in family (the tree: 96aca45's mm_tiles_f
# change reaches GLA, Mamba-2 and GKA too) and of the chunk-64 fixtures of this change.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for f in gla kda; do for shape in "--B 8 --T 4096" "--B 1 --T 32768"; do for v in tree tpl-96aca45; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml $shape --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " (bwd-saved|fwd\+bwd-saved) |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done; done; done
for f in dsl/families/*.yaml bench/2026-11-29-gpu-h200-s45/emu/*.yaml; do
  n=$(basename $f .yaml)
  timeout 120 $S check --backend cuda --quick $f > $OUT/check-$n.txt 2>&1; echo "$n rc=$? $(tail -1 $OUT/check-$n.txt)"
done | tee $OUT/checks.txt
