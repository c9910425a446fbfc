#!/bin/bash
# session 27 call 3 (5628410: fused90's bf16 form with tile_cp16's branch-free copies): checks, sanitizers of the
# fused90 fixture, Mamba-2 forward against 628d235's templates (the tf32 form) at B8, and the staged forward
# (`fwd`) against fused90 at small batches (the pick rule's crossover); fla's chunk_simple_gla forward, same call
D=bench/2026-11-25-gpu-h200-hb
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-628d235
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in dsl/families/mamba2.yaml tests/fixtures/specs/cuda_fused_k64.yaml; do
  n=$(basename $s .yaml)
  timeout 100 $S check --backend cuda --no-bwd --dtype bf16 $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "edges.*fwd-fused90 y" $OUT/check-$n.txt
done
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 20 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/emu_f90.yaml > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? $(grep '^check:' $OUT/$tool.txt) $(tail -1 $OUT/$tool.txt)"
done
run() { # round spec shape variants rows
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " ($5) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $5, $6, $8}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 8 --T 4096 --H 16" "tree $base" "fwd-fused90"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 8 --T 4096 --H 32" "tree $base" "fwd-fused90"
done
for B in 2 3 4; do run 1 dsl/families/mamba2.yaml "--B $B --T 4096 --H 16" tree "fwd|fwd-fused90"; done
for B in 1 2 4; do run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B $B --T 4096 --H 32" tree "fwd|fwd-fused90"; done
PYTHONPATH=.fla timeout 200 python3 -u $D/fla_sgla.py fwd 8,4096,16,128 8,4096,32,64 2,4096,16,128 4,4096,16,128 2,4096,32,64 2>&1 | tee $OUT/fla.txt | tail -5
cd $OUT && tar -czf logs.tgz check-*.txt memcheck.txt racecheck.txt && rm -f check-*.txt memcheck.txt racecheck.txt
