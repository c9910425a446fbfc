#!/bin/bash
# session 37 call 7 (04eea7c's binary: the kernels of 92988c1 at these shapes): the headline rows beside fla's
# chunk_gated_delta_rule in the same call: GDN K = V = 128 B8 T4096 H16 and K = V = 64 B8 T4096 H32, forward
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for x in "dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16" "bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml --B 8 --T 4096 --H 32"; do
  for r in 1 2; do
    timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd $x --decode 1 --reps 20 2>&1 | grep -E " fwd-fused90 |rror" | sed "s/^/round$r /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $7}'
  done
done
PYTHONPATH=.fla timeout 300 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 8,4096,32,64 > $OUT/fla.txt 2>&1; tail -2 $OUT/fla.txt
