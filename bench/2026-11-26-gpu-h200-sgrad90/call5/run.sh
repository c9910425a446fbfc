#!/bin/bash
# session 32 call 5: the review commit d383880 (add_kgrad through kgrad_row: the f32 modules' and sm_80's sgrad and
# gsolve change, the sm_90a stages do not): checks with the backward of every solve fixture and GKA; GKA fwd+bwd B8
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -5
for f in emu_solve_bf cuda_solve_delta bwd_solve_key bwd_solve_short cuda_solve_wide; do
  timeout 120 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
timeout 150 $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-saved)? " | tee $OUT/bench.txt | awk '{print $2, $4, $5, $6, $7, $8, $9}'
cd $OUT && tar -czf logs.tgz check-*.txt && rm -f check-*.txt
