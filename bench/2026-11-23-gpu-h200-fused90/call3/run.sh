#!/bin/bash
# call 3: the anchors (fla, mamba_ssm forwards) and ssmc's forwards in the same call on the same H200
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for spec in mamba2 gated_deltanet; do for B in 8 16 4 1; do
  T=4096; [ $B = 1 ] && T=32768
  timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 dsl/families/$spec.yaml --B $B --T $T --H 16 > $OUT/bench-$spec-B$B.txt 2>&1
  echo "$spec B$B T$T: $(grep -E ' fwd' $OUT/bench-$spec-B$B.txt | tr -s ' ' | cut -c40-150 | tr '\n' '|')"
done; done
timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 tests/fixtures/specs/cuda_fused_k64.yaml --B 8 --T 4096 --H 32 > $OUT/bench-k64-B8.txt 2>&1
echo "k64 B8 H32: $(grep -E ' fwd' $OUT/bench-k64-B8.txt | tr -s ' ' | cut -c40-150 | tr '\n' '|')"
PYTHONPATH=.fla:.mamba timeout 400 python3 bench/anchors/fwd_anchors.py 2>&1 | tee $OUT/anchors.txt | grep -v Warning
