#!/bin/bash
# session 44 call 2: bgrad's products after the loop without the barriers between P1, P2 and dG k (dk's row part
# in its own tile) and with SEP on sm_90: the tree against a427ccd's templates (tpl-a427ccd), GDN and Mamba-2 B8
# T4096 H16 bf16 forward + backward; then the quick CUDA check of GDN, Mamba-2, DeltaNet
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for f in gated_deltanet mamba2; do for v in tree tpl-a427ccd; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
    grep -E " (bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s|^|$v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $6}'
done; done
for f in gated_deltanet mamba2 deltanet; do
  timeout 90 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1; echo "$f rc=$?"; tail -1 $OUT/check-$f.txt
done
