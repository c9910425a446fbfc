#!/bin/bash
# NOT RUN (for the next session; ~250 s of device time). Pack on the workstation: scripts/gpu-pack.sh b12052c
# (the tree and .gpu/tpl-b12052c: the templates before breduce was marked when=grouped, so the same binary launches
# it there). Times 01de853's breduce skip: GDN and Mamba-2 bf16 B8 T4096 H16 bwd-saved and fwd+bwd-saved, the tree
# against tpl-b12052c, two rounds (expected about -0.03 ms from call 1's ncu listing); then the quick checks of both
# with the tree (grouped heads run breduce; T=4096 rows do not).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for f in gated_deltanet mamba2; do for v in tree tpl-b12052c; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" | sed "s|^|round$r $v |" |
    tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done; done
for f in gated_deltanet mamba2; do
  timeout 150 $S check --backend cuda dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/check-$f.txt)"
done
