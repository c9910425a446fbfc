#!/bin/bash
# session 18 call 4: wgmma descriptors as 32-bit halves (one 32-bit add a k step) in wg_product, working tree
# against 49f5d56 (.gpu/tpl-49f5d56): forward rows at B8 T4096 H16 and H32 K=V=64, three rounds; then checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
AB_ROUNDS=3 AB_SPECS="mamba2 gated_deltanet" OUT=$OUT timeout 240 scripts/gpu.sh ab > $OUT/ab.log 2>&1
echo "ab rc=$?"
grep -E "fused90|fwd " $OUT/ab.txt | awk '{print $1, $2, substr($3,6,12), $4, $8, $9}'
for s in mamba2 gated_deltanet deltanet; do
  timeout 60 $S check --backend cuda --quick --no-bwd dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3
done
