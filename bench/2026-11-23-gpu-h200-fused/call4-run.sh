#!/bin/bash
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; B="bench --backend cuda --dtype bf16"
for s in mamba2 gated_deltanet; do for v in base t1 new base t1 new; do t=""; [ $v != new ] && t="--templates .gpu/tpl_$v"
  timeout 40 $S $B $t dsl/families/$s.yaml --B 8 --T 4096 --H 16 --no-bwd --decode 1 --reps 20 2>&1 | grep -E " fwd|error" | sed "s/^/$v /" | tee -a $OUT/ab.txt
done; done
