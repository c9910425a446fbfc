#!/bin/bash
# s55 call 1: BQS's two forms and the runtime's pick (bb66176, untimed on a GPU as a whole): Mamba-2 bf16 bwd (wide:
# tile pass), bwd-narrow (elementwise), bwd-saved (the pick, forward kept) at B1 T32768, B2 T16384, B4 T8192,
# B8 T4096 (H16, K=V=128) and B8 T4096 H32 K=V=64; compute-sanitizer on bprep_n and bscan_n; ncu of the tile pass at B1.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do
  for sh in "1 32768 16 mamba2" "2 16384 16 mamba2" "4 8192 16 mamba2" "8 4096 16 mamba2" "8 4096 32 k64"; do set -- $sh
  timeout 60 $S bench --backend cuda --dtype bf16 $([ $4 = k64 ] && echo tests/fixtures/specs/cuda_fused_k64.yaml || echo dsl/families/$4.yaml) --B $1 --T $2 --H $3 \
    --rows bwd,bwd-narrow,bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E " bwd| fwd\+bwd|rror" |
    sed "s|^|round$r |" | tee -a $OUT/pick.txt | awk '{print $1, $3, $4, $5, $6, $7, $9}'
  done
done
for f in tests/fixtures/specs/emu_scalar_v80.yaml dsl/families/mamba2.yaml; do
timeout 100 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
cp /tmp/q.txt $OUT/quick-$(basename $f .yaml).txt
done
for k in bprep_n bscan_n; do for tool in memcheck racecheck; do
timeout 120 compute-sanitizer --tool $tool --kernel-name kns=$k --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_scalar_v80.yaml > /tmp/m.txt 2>&1
echo "$tool $k emu_scalar_v80 rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done; done
timeout 120 ncu --kernel-name regex:bscan --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  $S bench --backend cuda --dtype bf16 --rows bwd --reps 1 --B 1 --T 32768 --H 16 dsl/families/mamba2.yaml > $OUT/ncu-bscan-b1.txt 2>&1
echo "ncu rc=$?" >> $OUT/checks.txt
