#!/bin/bash
# call 1: oracle checks of the bscan binary, bench before (base) / after (new)
D=.gpu-bscan
export LD_LIBRARY_PATH=$PWD/$D SSMC_CACHE_DIR=$(mktemp -d)
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u) > $OUT/env.txt
for s in dsl/families/mamba2.yaml dsl/families/gla.yaml examples/my_ssm.yaml dsl/families/gated_kalmanet.yaml "--quick dsl/families/gated_deltanet.yaml"; do
  b=$(basename ${s##* } .yaml); t0=$(date +%s)
  timeout 120 $D/ssmc check --backend cuda $s > $OUT/check-$b.txt 2>&1; rc=$?
  echo "$b rc=$rc $(grep -c FAIL $OUT/check-$b.txt) fail; $(tail -1 $OUT/check-$b.txt) ($(( $(date +%s) - t0 )) s)"; grep FAIL $OUT/check-$b.txt | head -5
done
for s in mamba2 gla; do for v in base new; do
  S=$D/ssmc; [ $v = base ] && S=$D/ssmc-base
  echo "## $v" >> $OUT/bench.txt
  timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 20 2>&1 | grep -E "^#|fwd|bwd" >> $OUT/bench.txt
done; done
grep -E "^##|bwd" $OUT/bench.txt
