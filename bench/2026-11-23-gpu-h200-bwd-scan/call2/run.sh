#!/bin/bash
# call 2: oracle checks of the final binary (new), bench base / ku (fprep writes kd, U) / new (recomputed)
D=.gpu-bscan
export LD_LIBRARY_PATH=$PWD/$D SSMC_CACHE_DIR=$(mktemp -d)
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u) > $OUT/env.txt
for s in dsl/families/mamba2.yaml dsl/families/gla.yaml examples/my_ssm.yaml; do
  b=$(basename $s .yaml); t0=$(date +%s)
  timeout 100 $D/ssmc check --backend cuda $s > $OUT/check-$b.txt 2>&1; rc=$?
  echo "$b rc=$rc $(grep -c FAIL $OUT/check-$b.txt) fail; $(tail -1 $OUT/check-$b.txt) ($(( $(date +%s) - t0 )) s)"; grep FAIL $OUT/check-$b.txt | head -5
done
b() { # variant spec B T
  S=$D/ssmc; [ $1 != new ] && S=$D/ssmc-$1
  echo "## $1" >> $OUT/bench.txt
  timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$2.yaml --B $3 --T $4 --H 16 --decode 1 --reps 20 2>&1 | grep -E "^# fwd|fwd|bwd" >> $OUT/bench.txt
}
b base mamba2 8 4096; b ku mamba2 8 4096; b new mamba2 8 4096
b base mamba2 1 32768; b new mamba2 1 32768
b base gla 8 4096; b new gla 8 4096
grep -E "^##|bwd" $OUT/bench.txt
