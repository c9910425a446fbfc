#!/bin/bash
# session 47 call 4 (fbce160, the same pack): call 3's compute-sanitizer step again with the filter compute-sanitizer
# takes (--kernel-name kns=SUBSTRING; call 3's regex: form was refused, rc 1): memcheck and racecheck on the fused90
# stages of cuda_f90_q2_k128 (the two-term query) and emu_split_delta (HD at V = 64), check --quick with the backward.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for f in cuda_f90_q2_k128 emu_split_delta; do for tool in memcheck racecheck; do
  timeout 130 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=fused90 $S check --backend cuda --quick \
    tests/fixtures/specs/$f.yaml > $OUT/san-$tool-$f.txt 2>&1
  echo "$f $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' $OUT/san-$tool-$f.txt | tr '\n' ' ')"
  tail -c 300 $OUT/san-$tool-$f.txt | tail -2
done; done
