#!/bin/bash
# session 40 call 2 (f6cf9a8: t_form's stores by a template flag): GDN B8 T4096 H16 fwd+bwd against the session
# start's templates (6f5656c), fla's chunk_gated_delta_rule fwd+bwd in the same call; the K = 32 fixture's check
# (its f32 module's edges dg failed under compute-sanitizer in call 1) with both templates; GDN B1 T32768 H16
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 120 "${x[@]}" --backend cuda --dtype bf16 $2 $3 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
run 1 $G "--B 8 --T 4096 --H 16" "new 6f5656c"
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
timeout 100 $S check --backend cuda --quick $F/emu_f90_delta.yaml > $OUT/check-new.txt 2>&1; echo "check new rc=$?"
grep -E "FAIL|comparisons" $OUT/check-new.txt
run 2 $G "--B 8 --T 4096 --H 16" "new 6f5656c"
timeout 100 $S check --backend cuda --quick --templates .gpu/tpl-6f5656c $F/emu_f90_delta.yaml > $OUT/check-6f5656c.txt 2>&1; echo "check 6f5656c rc=$?"
grep -E "FAIL|comparisons" $OUT/check-6f5656c.txt
run 1 $G "--B 1 --T 32768 --H 16" "new 6f5656c"
