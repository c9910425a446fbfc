#!/bin/bash
# s60 call 4: quick checks on the GPU of the landed tree (03bf813: p72 and bval's last pass with tg8), with the
# emu_bgw_delta fixture whose f32 bgrad now takes the staged producer form (STG) since p72; the modules compiled
# there (no cache carried)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=/tmp/cache
for f in tests/fixtures/specs/emu_bgw_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/mamba2.yaml dsl/families/deltanet.yaml dsl/families/gla.yaml; do
  timeout 200 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -8 >> $OUT/checks.txt
done
