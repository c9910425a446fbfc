#!/bin/bash
# NOT RUN (for the next session; ~250 s of device time; `bench --rows` from the commit after 85989a6). Pack first with the diff applied to the tree's templates:
#   git apply bench/2026-11-29-gpu-h200-s44/call4/rl-sep.diff && build/ssmc gen && scripts/gpu-pack.sh HEAD
# (HEAD's templates, without the diff, as tpl-<HEAD>). Times the generic mm's unrounded lo on sm_90 and the wide
# bstate's SEP (session 44's call 4, whose 90 s timeouts cut every bench short) against HEAD, GDN B8 bf16 backward,
# two rounds; then the quick CUDA check of GDN under the tree. Keep the diff only if it is faster in both rounds.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for v in tree $(cd .gpu && ls -d tpl-*); do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 150 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 |
    grep -E " (bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $8}'
done; done
timeout 60 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1; tail -1 $OUT/check-gdn.txt
