#!/bin/bash
# session 19 call 1: dA once a chunk (bprep) and dG once (bval) instead of in every key tile of bgrad;
# working tree (44d6ed5) against 276419f (.gpu/tpl-276419f); bf16 H16
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt
run() { # round shape spec
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 70 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
  done
}
for sp in gated_deltanet mamba2; do run 1 "--B 8 --T 4096" dsl/families/$sp.yaml; done
for sp in gated_deltanet mamba2; do run 1 "--B 1 --T 32768" dsl/families/$sp.yaml; done
for sp in gated_deltanet mamba2; do run 2 "--B 8 --T 4096" dsl/families/$sp.yaml; done
for sp in kda gla; do run 1 "--B 8 --T 4096" dsl/families/$sp.yaml; done
cd $OUT && tar czf call1.tgz *.txt
