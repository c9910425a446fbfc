#!/bin/bash
# session 42 call 3: gsolve's QR fix (GKA at K = 96; the K = 48 fixture) and more unseen specs (specs/), checked on
# the H200 four at a time; GDN at K = 64, V = 128 (edges dg over its bound in call 2) with a diagnostic variant of
# the templates (tpl-bge: bgrad's lo terms apart forced where its accumulators do not fit) — its rows and its bgrad's
# registers and spills, and the time of its backward against the tree's
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s42
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 420 $S check --backend cuda --quick --templates templates $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt)"; }
export -f one; export S OUT
ls $D/call3/specs/*.yaml tests/fixtures/specs/emu_solve_k48.yaml | xargs -P 4 -I{} bash -c 'one {}' | tee $OUT/summary.txt
G=$D/call3/gated_deltanet_k64v128c64.yaml
SSMC_CACHE_DIR=$(mktemp -d) timeout 300 $S check --backend cuda --quick --templates .gpu/tpl-bge $G > $OUT/c/bge-check.txt 2>&1
echo "tpl-bge check rc=$? $(grep -E '^check:' $OUT/c/bge-check.txt)" | tee -a $OUT/summary.txt
grep -E "edges .*bwd[a-z0-9-]* dg" $OUT/c/bge-check.txt | awk '{print $1, $4, $6, $8}' | tee -a $OUT/summary.txt
$S compile --arch sm_90a --templates .gpu/tpl-bge $G 2>&1 | grep bgrad | tee -a $OUT/summary.txt
export SSMC_CACHE_DIR=$(mktemp -d)
for v in templates .gpu/tpl-bge; do
  timeout 100 $S bench --templates $v --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
    grep -E " (bwd|bwd-saved|fwd\+bwd-saved) |rror" | sed "s|^|$(basename $v) |" | tee -a $OUT/bench.txt | awk '{print $1, $3, $5, $9}'
done
timeout 200 compute-sanitizer --tool memcheck --kernel-name kns=gsolve --error-exitcode 9 $S check --backend cuda --quick --templates templates tests/fixtures/specs/emu_solve_k48.yaml > $OUT/c/memcheck-gsolve.txt 2>&1
echo "memcheck gsolve rc=$? $(tail -1 $OUT/c/memcheck-gsolve.txt)" | tee -a $OUT/summary.txt
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
