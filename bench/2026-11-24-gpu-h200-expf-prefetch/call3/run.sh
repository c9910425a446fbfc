#!/bin/bash
# session 18 call 3: fexp (ex2.approx) in the decay masks + fused90's L2 prefetch of the next chunk's W/U rows
# (working tree) against main 5c7c508 (.gpu/tpl-5c7c508), B8 T4096 H16 bf16, fwd and bwd, two rounds; then
# check --backend cuda --quick of every spec whose kernels changed
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
AB_ROUNDS=2 AB_SPECS="mamba2 gated_deltanet gla" AB_BWD=1 OUT=$OUT timeout 330 scripts/gpu.sh ab > $OUT/ab.log 2>&1
echo "ab rc=$?"
for s in mamba2 gated_deltanet gla kda deltanet; do
  timeout 70 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3
done
