#!/bin/bash
# session 42 call 4: the solve's decode_large fix (U's place the larger of K V and the packed H) on the H200: GKA at
# K = 128 with V = 64 (failed in call 3) and 32, K = 64 V = 32, and the K = 48 V = 16 fixture; memcheck of its
# decode_large
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s42
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 420 $S check --backend cuda --quick --templates templates $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt)"; }
export -f one; export S OUT
ls $D/call4/specs/*.yaml tests/fixtures/specs/emu_solve_k48.yaml | xargs -P 4 -I{} bash -c 'one {}' | tee $OUT/summary.txt
SSMC_CACHE_DIR=$(mktemp -d) timeout 200 compute-sanitizer --tool memcheck --kernel-name kns=decode_large --error-exitcode 9 $S check --backend cuda --quick --no-bwd --templates templates $D/call4/specs/gated_kalmanet_k128v64c64.yaml > $OUT/c/memcheck-decode.txt 2>&1
echo "memcheck decode_large rc=$? $(tail -1 $OUT/c/memcheck-decode.txt)" | tee -a $OUT/summary.txt
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
