#!/bin/bash
# session 40 call 5 (cbc0e46; diagnostics, not kernels): the K = 96 fixture's edges dg (f32 1.7e-2, bf16 1.2e-2 on
# the GPU; the CPU 4.1e-3 / 2.9e-3) with two template variants made for the call: nobgw (bgrad's value loop on
# mma.sync instead of wgmma: cuda_bwd.cu.tpl's BGW false) and rlo (the wgmma loop's lo parts rounded to tf32 as they
# are stored, not truncated by the tensor cores: put_core_hl)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
for v in nobgw rlo; do
  timeout 100 .gpu/ssmc check --backend cuda --quick --templates .gpu/tpl-$v tests/fixtures/specs/emu_f90_delta_k96.yaml > $OUT/check-$v.txt 2>&1
  echo "$v rc=$?"; grep -E "comparisons| edges .* bwd d(q|k|g) " $OUT/check-$v.txt | cut -c1-150
done
