#!/bin/bash
# session 35 call 6: the session's last commit (6218f2e) against 8c039aa's templates with the backward (GDN and
# DeltaNet B8 T4096 H16: the forward, fwd+bwd recomputing, fwd+bwd with the forward kept), fla in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for f in gated_deltanet deltanet; do
  for v in new 8c039aa; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 150 "${x[@]}" --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|fwd-fused90|fwd\+bwd|fwd\+bwd-saved) " | sed "s/^/$v $f /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $8}'
  done
done
PYTHONPATH=.fla timeout 120 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 2>&1 | tail -1 | tee $OUT/fla.txt
