#!/bin/bash
# session 43 call 3 (79d7d08): modules made again from half the chunk where a backward stage's block did not fit
# 160 KiB: GKA at K = 64, V = 128, chunk 128 (bgrad 214 KB before: `ssmc compile` stopped there) and the fixture
# emu_solve_c128 (K = 48, V = 16, chunk 128: sgrad 178 KB), checked with the backward on the GPU (--quick)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 280 $S check --backend cuda --quick $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt) $(grep -m1 -o 'c128_bk[0-9]*bv[0-9]*' $OUT/c/$n.txt)"; tar -czf $OUT/c.tgz -C $OUT c; }
export -f one; export S OUT
ls bench/2026-11-29-gpu-h200-s43/gka_k64v128c128.yaml tests/fixtures/specs/emu_solve_c128.yaml | xargs -P 2 -I{} bash -c 'one {}' | tee $OUT/summary.txt
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
