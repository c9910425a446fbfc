#!/usr/bin/env bash
# GKA decode variants, run 3: the two decode stages of a solve (built-in) checked and timed across batches, beside
# configuration D (4 rows x 32 columns a thread), E (256-thread decode), and the previous pair (Old: 512-thread decode).
set -u
G=.gpu-gka; S=$G/ssmc
export LD_LIBRARY_PATH=$PWD/$G SSMC_CACHE_DIR=$(mktemp -d)
O=${OUT:-/tmp/out}; mkdir -p $O
{ echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "commit: $(cat $G/commit)"; echo "NVRTC: $($S check --backend cuda --quick $G/specs/bwd_solve_key.yaml 2>&1 | head -1)"; } > $O/env.txt
cat $O/env.txt
SP=dsl/families/gated_kalmanet.yaml
DEC=1,8,16,32,64,128,256,512,1024
{
echo "== check full (built-in)"; timeout 150 $S check --backend cuda $SP
echo "== check quick unseen"; timeout 60 $S check --backend cuda --quick $G/specs/gka64.yaml $G/specs/bwd_solve_key.yaml
echo "== check quick gated_deltanet"; timeout 60 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml
for t in D E; do echo "== check quick $t"; timeout 40 $S check --backend cuda --quick --templates $G/tpl$t $SP; done
} > $O/check.txt 2>&1
grep -E "^==|^check:|FAIL|error" $O/check.txt | head -40
for t in base D E Old; do
  tp=""; [ $t != base ] && tp="--templates $G/tpl$t"
  echo "== bench $t"
  timeout 60 $S bench --backend cuda --dtype bf16 $tp $SP --B 1 --T 64 --H 16 --decode $DEC --reps 20 2>&1 | grep -E "decode|error|device|ceil"
done > $O/bench.txt 2>&1
grep -E "==|decode" $O/bench.txt | sed 's/ssmc_gated_kalmanet_c441aafa_k128v128_c64_bk64bv64_bf16//; s/TFLOP.*floor//; s/host-incl/h/'
timeout 45 ncu --clock-control none -k regex:decode_large --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    $S bench --backend cuda --dtype bf16 $SP --B 1 --T 64 --H 16 --decode 512 --reps 1 > $O/ncu-large.txt 2>&1
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Issued Warp|Registers Per" $O/ncu-large.txt | head -8
for tool in memcheck racecheck; do
  timeout 75 compute-sanitizer --tool $tool --kernel-name kns=decode --launch-count 300 --error-exitcode 9 $S check --backend cuda --quick $SP > $O/san-$tool.txt 2>&1; echo "sanitizer $tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" $O/san-$tool.txt | head -3
done
