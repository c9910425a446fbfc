#!/bin/bash
# call 6: GDN at K = V = 64 (fused90's key-half path with an erase): check and bench, B8 / B4 T4096 H32
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
timeout 150 $S check --backend cuda --no-bwd --dtype bf16 $G > $OUT/check-gdn-k64.txt 2>&1
echo "check gdn k64: $(tail -1 $OUT/check-gdn-k64.txt)"; grep -E "FAIL|error" $OUT/check-gdn-k64.txt | head -3; grep "fused90 y" $OUT/check-gdn-k64.txt
for B in 8 4; do
  timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 $G --B $B --T 4096 --H 32 > $OUT/bench-gdn-k64-B$B.txt 2>&1
  echo "gdn k64 B$B H32: $(grep -E ' fwd' $OUT/bench-gdn-k64-B$B.txt | tr -s ' ' | cut -c40-140 | tr '\n' '|')"
done
