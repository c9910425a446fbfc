#!/bin/bash
# session 44 call 4: the generic mm's split lo part unrounded on sm_90 (mm_tiles_f) and the wide bstate's lo terms in
# accumulators of their own (SEP) on sm_90: tree (both), tpl-sep (SEP only), tpl-f88df20 (neither); GDN B8 T4096 H16
# bf16 backward; then the quick CUDA check of GDN, DeltaNet, KDA
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for v in tree tpl-sep tpl-f88df20; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
    grep -E " (bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s|^|$v |" | tee -a $OUT/ab.txt | awk '{print $1, $3, $7}'
done
for f in gated_deltanet deltanet kda; do
  timeout 60 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1; echo "$f rc=$?"; tail -1 $OUT/check-$f.txt
done
