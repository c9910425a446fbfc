#!/bin/bash
# session 16 call 4: the final tree (bgrad: mm_acc, cp.async buffers; sm_90 split unroll 4) on every backward shape of issue 8, and fla's fwd+bwd anchors in the same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in mamba2 gated_deltanet; do
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$f.txt 2>&1
  echo "$f B8: $(grep -E ' (fwd-fused90|bwd|fwd\+bwd) ' $OUT/b8-$f.txt | awk '{print $2, $6}' | tr '\n' ' ')"
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 5 dsl/families/$f.yaml --B 1 --T 32768 --H 16 > $OUT/b1-$f.txt 2>&1
  echo "$f B1 T32768: $(grep -E ' (fwd\S*|bwd|fwd\+bwd) ' $OUT/b1-$f.txt | awk '{print $2, $6}' | tr '\n' ' ')"
done
for f in tests/fixtures/specs/cuda_fused_k64.yaml bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml; do
  timeout 100 $S bench --backend cuda --dtype bf16 --decode 1 --reps 10 $f --B 8 --T 4096 --H 32 > $OUT/k64-$(basename $f .yaml).txt 2>&1
  echo "$(basename $f .yaml) B8 H32: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/k64-$(basename $f .yaml).txt | awk '{print $2, $6}' | tr '\n' ' ')"
done
PYTHONPATH=.fla timeout 360 python3 bench/anchors/bwd_anchors.py > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors rc=$?"; cat $OUT/anchors-bwd.txt; tail -3 $OUT/anchors-bwd.err
