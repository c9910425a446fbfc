#!/bin/bash
# session 43 call 4 (79d7d08): ten specs the binary has never seen, at dims and chunks s42's sweep did not take
# (V = 80, 48, 160; K = 16, 48, 80, 160, 192; chunks 16, 32, 128), every family: check --backend cuda --quick with
# the backward, four at a time
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s43/call4
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 170 $S check --backend cuda --quick $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt)"; }
export -f one; export S OUT
ls $D/specs/*.yaml | xargs -P 4 -I{} bash -c 'one {}' | tee $OUT/summary.txt
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
