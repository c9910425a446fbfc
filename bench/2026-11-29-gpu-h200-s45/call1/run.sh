#!/bin/bash
# NOT RUN (for the next session; ~400 s of device time). Pack with next/pack.sh (this machine), carry .gpu-pack.
# Times session 44's two untimed candidates against the tree (GDN bf16 backward after a kept forward, B8 T4096 H16
# and B1 T32768 H16, where the narrow state passes run; two rounds): tpl-rlsep (call4/rl-sep.diff) and tpl-z
# (next/z-form.diff); then the quick CUDA check of GDN under each candidate. Keep a candidate only if faster in
# both rounds, and say what it does to the edge dg rows.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for shape in "--B 8 --T 4096" "--B 1 --T 32768"; do for v in tree tpl-rlsep tpl-z; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml $shape --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " (bwd-saved|fwd\+bwd-saved) |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
done; done; done
for v in tpl-rlsep tpl-z; do
  timeout 90 $S check --backend cuda --quick --templates .gpu/$v dsl/families/gated_deltanet.yaml > $OUT/check-$v.txt 2>&1
  echo "$v $(tail -1 $OUT/check-$v.txt)"; grep ' edges .* dg ' $OUT/check-$v.txt | awk '{print $1, $3, $4, $6}'
done
