#!/bin/bash
# session 42 call 2: the CUDA kernels of specs the binary has never seen, on the H200 — each built-in family at other
# dims and chunks (specs/: K = 96 without tiles, K = V = 32, K = 256, V = 64, chunk 32 and 128) — `check --backend
# cuda --quick` with the backward, four at a time; compute-sanitizer (memcheck, racecheck) on bgrad's BGE form
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s42/call2
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 420 $S check --backend cuda --quick --templates templates $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt)"; }
export -f one; export S OUT
ls $D/specs/*.yaml | xargs -P 4 -I{} bash -c 'one {}' | tee $OUT/summary.txt
F=tests/fixtures/specs/emu_f90_delta_k96.yaml
for tool in memcheck racecheck; do
  SSMC_CACHE_DIR=$(mktemp -d) timeout 200 compute-sanitizer --tool $tool --kernel-name kns=bgrad --error-exitcode 9 $S check --backend cuda --quick --templates templates $F > $OUT/c/san-$tool.txt 2>&1
  echo "$tool rc=$? $(tail -1 $OUT/c/san-$tool.txt)" | tee -a $OUT/summary.txt
done
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
