#!/bin/bash
# call 4: fused90 with fewer wgmma waits a chunk (new: working tree; b: the same with an erase's prefetch
# during the products; base: 8026fac's templates), same binary, same call
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 120 $S check --backend cuda --quick --no-bwd dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
echo "check mamba2 new: $(tail -1 $OUT/check-mamba2.txt)"; grep -E "FAIL|error" $OUT/check-mamba2.txt | head -3
timeout 120 $S check --backend cuda --quick --no-bwd dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1
echo "check gdn new: $(tail -1 $OUT/check-gdn.txt)"; grep -E "FAIL|error" $OUT/check-gdn.txt | head -3
timeout 120 $S check --backend cuda --quick --no-bwd --templates .gpu/tpl-b dsl/families/gated_deltanet.yaml > $OUT/check-gdn-b.txt 2>&1
echo "check gdn b: $(tail -1 $OUT/check-gdn-b.txt)"
for rep in 1 2; do
for v in base new b; do
  t=""; [ $v = base ] && t="--templates .gpu/tpl-8026fac"; [ $v = b ] && t="--templates .gpu/tpl-b"
  for spec in mamba2 gated_deltanet; do
    [ $spec = mamba2 ] && [ $v = b ] && continue
    timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 $t dsl/families/$spec.yaml --B 8 --T 4096 --H 16 > $OUT/bench-$spec-$v-$rep.txt 2>&1
    echo "$spec $v: $(grep -E 'fwd-fused90' $OUT/bench-$spec-$v-$rep.txt | tr -s ' ' | cut -c40-120)"
  done
done
done
timeout 60 $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 tests/fixtures/specs/cuda_fused_k64.yaml --B 8 --T 4096 --H 32 > $OUT/bench-k64.txt 2>&1
echo "k64 new: $(grep -E 'fwd-fused90' $OUT/bench-k64.txt | tr -s ' ' | cut -c40-120)"
timeout 120 ncu --clock-control none --kernel-name regex:'bf16_fused90$' --launch-count 1 --section SpeedOfLight --section WarpStateStats --metrics gpu__time_duration.sum,sm__inst_executed.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_misc,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_lg_throttle \
  $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 1 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-fused90.txt 2>&1
grep -E "Duration|inst_executed|pcsamp|Cycles Per Issued|Throughput" $OUT/ncu-fused90.txt | tr -s ' ' | head -30
