#!/bin/bash
# session 27 call 1: fused90's bf16 form (HB, working tree on 628d235): checks on the GPU (Mamba-2, the fused90
# fixtures, K = V = 64), its sanitizers (memcheck, racecheck), Mamba-2 forward A/B against 628d235's templates (the
# tf32 form), two rounds; fla's chunk_simple_gla in the same call
D=bench/2026-11-25-gpu-h200-hb
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-628d235
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in dsl/families/mamba2.yaml tests/fixtures/specs/emu_f90.yaml tests/fixtures/specs/emu_f90_v64.yaml tests/fixtures/specs/cuda_fused_k64.yaml; do
  n=$(basename $s .yaml)
  timeout 120 $S check --backend cuda --no-bwd --dtype bf16 $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "edges.*fwd-fused90 y" $OUT/check-$n.txt
done
run() { # round spec shape variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd[-a-z0-9+]* " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 8 --T 4096 --H 16" "tree $base"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 8 --T 4096 --H 32" "tree $base"
done
run 1 dsl/families/mamba2.yaml "--B 16 --T 4096 --H 16" "tree $base"
run 1 dsl/families/mamba2.yaml "--B 4 --T 4096 --H 16" "tree $base"
PYTHONPATH=.fla timeout 150 python3 $D/fla_sgla.py 8,4096,16,128 16,4096,16,128 4,4096,16,128 8,4096,32,64 2>&1 | tee $OUT/fla.txt | tail -4
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 20 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/emu_f90.yaml > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? $(grep '^check:' $OUT/$tool.txt) $(tail -1 $OUT/$tool.txt)"
done
