#!/bin/bash
# session 36 call 2 (the pick from 24% on): GDN B8 T4096 H16 and DeltaNet bench rows beside fla's
# chunk_gated_delta_rule in the same call, GDN at B1 (12%); checks of GDN and DeltaNet on the GPU (the forward)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # spec shape
  timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd $1 $2 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? |rror" | sed "s/^/$(basename $1 .yaml) $(echo $2 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $8}'
}
G=dsl/families/gated_deltanet.yaml
run $G "--B 8 --T 4096 --H 16"
run dsl/families/deltanet.yaml "--B 8 --T 4096 --H 16"
run $G "--B 1 --T 4096 --H 16"
PYTHONPATH=.fla timeout 240 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
run $G "--B 8 --T 4096 --H 16"
timeout 180 $S check --backend cuda --dtype bf16 --no-bwd $G dsl/families/deltanet.yaml > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
