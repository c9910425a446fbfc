#!/bin/bash
# call 2: ncu sections of the out stage, wgmma (new) vs mma.sync (base 47b2e53), Mamba-2 bf16 B8 T4096 H16
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for v in new base; do
  t=""; [ $v = base ] && t="--templates .gpu/tpl-47b2e53"
  timeout 200 ncu --clock-control none --kernel-name regex:'bf16_out$' --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy --section InstructionStats \
    $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 1 $t dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-sections-$v.txt 2>&1
done
grep -E "Duration|Executed Ipc A|Issue Slots Busy|Stall|Bank|Registers|Achieved Occ|Shared Memory|Warp Cycles Per Issued|Executed Instructions " $OUT/ncu-sections-new.txt | head -40
echo =====
grep -E "Duration|Executed Ipc A|Issue Slots Busy|Stall|Bank|Registers|Achieved Occ|Shared Memory|Warp Cycles Per Issued|Executed Instructions " $OUT/ncu-sections-base.txt | head -40
