#!/bin/bash
# s62 call 1: BGA (bgrad's workspace tiles by cp.async straight into wgmma's operands two steps ahead, the inputs
# through two register sets) in the working tree against f49b2e2's templates (tpl-base); Mamba-2 bf16 H200
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
AB_SPECS=mamba2 AB_BWD=1 AB_ROWS=bwd-saved,fwd+bwd-saved AB_ROUNDS=2 QUICK_SPECS="dsl/families/mamba2.yaml tests/fixtures/specs/emu_f90.yaml tests/fixtures/specs/cuda_f90_k48.yaml tests/fixtures/specs/cuda_fused_k64.yaml tests/fixtures/specs/emu_wg_scalar.yaml" \
  timeout 420 scripts/gpu.sh ab stages quick
AB_SPECS=mamba2 AB_BWD=1 AB_ROWS=fwd+bwd-saved AB_ROUNDS=1 AB_SHAPE="--B 1 --T 32768 --H 16" OUT=$OUT/b1 timeout 100 scripts/gpu.sh ab
export SSMC_NVRTC_LINEINFO=1
for k in bgrad; do
  timeout 90 ncu --clock-control none -k regex:"bf16_$k\$" --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats \
    --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis -o /tmp/r_$k .gpu/ssmc bench --backend cuda --dtype bf16 \
    --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml > $OUT/ncu_$k.log 2>&1
  ncu -i /tmp/r_$k.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/cs_mamba2_$k.csv.xz
  ncu -i /tmp/r_$k.ncu-rep --page details > $OUT/details_mamba2_$k.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occ|Memory Throughput|DRAM Throughput" $OUT/details_mamba2_$k.txt | head -6
done
