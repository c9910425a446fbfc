#!/bin/bash
# session 40 call 3 (f6cf9a8): the scope of call 2's f32 edges dg failure (the K = 32 fixture, both templates): the
# checks of the K = V = 64 and K = 96 fixtures (f32 and bf16 modules, with the backward)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
F=tests/fixtures/specs
for s in emu_bgw_delta emu_f90_delta_k96; do
  timeout 130 $S check --backend cuda --quick $F/$s.yaml > $OUT/check-$s.txt 2>&1; echo "check $s rc=$?"
  grep -E "FAIL|comparisons| edges .* dg " $OUT/check-$s.txt | cut -c1-150
done
