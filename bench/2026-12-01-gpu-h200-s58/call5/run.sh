#!/bin/bash
# s58 call 5: where the backward's narrow pick should turn (BS2's wide bstate against bstate_n): tpl-p20 (the pick
# below 20% of the SMs: wide at every shape here) and tpl-p60 (below 60%: narrow at every shape here), GDN and
# DeltaNet bf16, shapes whose wide grid (forward value tiles of 64) is 24% .. 48% of 132 SMs.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
b() { # variant spec B T H
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$2.yaml --B $3 --T $4 --H $5 \
    --rows bwd-saved --reps 5 --templates .gpu/tpl-$1 2>&1 | grep -E " bwd-saved|rror" | sed "s/^/$1 $2 B$3 H$5 /" | tee -a $OUT/ab.txt
}
for sh in "2 16384 8" "2 16384 12" "1 32768 24" "1 32768 32" "3 8192 12" "2 16384 16"; do set -- $sh
  for v in p20 p60 p20 p60; do b $v gated_deltanet $1 $2 $3; done
done
