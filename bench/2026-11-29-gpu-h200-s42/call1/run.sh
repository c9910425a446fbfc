#!/bin/bash
# session 42 call 1: bgrad's lo terms apart (BGE) on the H200 — f32 modules (s41) and now bf16 ones — on the two
# fixtures whose edges dg failed in s40; their backward's time against 6f5656c's templates (one accumulator);
# racecheck/memcheck of the new bgrad form
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
git rev-parse --short HEAD >> $OUT/env.txt 2>/dev/null
for f in emu_f90_delta_k96 emu_f90_delta; do
  timeout 150 $S check --backend cuda --quick --templates templates $F/$f.yaml > $OUT/check-$f.txt 2>&1; echo "check $f rc=$?"
  grep -E "edges .*bwd[a-z0-9-]* dg|FAIL|comparisons" $OUT/check-$f.txt | awk '{print $1, $2, $3, $4, $6, $8}' | sed 's/ssmc_emu_f90_delta_//'
done
for r in 1; do
  for f in emu_f90_delta_k96 emu_f90_delta; do
    for d in bf16 f32; do
      for v in templates .gpu/tpl-6f5656c; do
        timeout 90 $S bench --templates $v --backend cuda --dtype $d $F/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
          grep -E " (bwd|bwd-saved|fwd\+bwd|fwd\+bwd-saved) |rror" | sed "s|^|round$r $(basename $v) $f $d |" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $5, $7}'
      done
    done
  done
done
timeout 120 compute-sanitizer --tool racecheck --kernel-name regex:bgrad --error-exitcode 9 $S check --backend cuda --quick --templates templates $F/emu_f90_delta.yaml > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -3 $OUT/racecheck.txt
timeout 120 compute-sanitizer --tool memcheck --kernel-name regex:bgrad --error-exitcode 9 $S check --backend cuda --quick --templates templates $F/emu_f90_delta.yaml > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -3 $OUT/memcheck.txt
