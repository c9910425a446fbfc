#!/bin/bash
# session 29 call 5: d444c28, fused90_seg's coefficients a chunk further ahead, against 8d4562e; checks and
# sanitizers of the split rows; the split forward's shapes; fla in the same call; the segment pass under ncu
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-8d4562e
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 200 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split y" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml --no-bwd
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
chk tests/fixtures/specs/cuda_f90_k48.yaml --no-bwd
for tool in memcheck racecheck; do
  for s in emu_f90 cuda_fused_k64; do
    timeout 120 compute-sanitizer --tool $tool --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/$s.yaml > $OUT/san-$tool-$s.txt 2>&1
    echo "$tool $s rc=$? $(grep '^check:' $OUT/san-$tool-$s.txt) $(tail -1 $OUT/san-$tool-$s.txt)"
  done
done
run() { # round spec shape variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 150 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-split " | sed "s/^/round$1 $(basename $v) $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $9, $11}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "tree $base"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "tree $base"
  run $r dsl/families/mamba2.yaml "--B 2 --T 16384 --H 16" "tree $base"
done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 150 ncu -k regex:"fused90_seg" -c 2 --metrics $M $S bench --backend cuda --dtype bf16 dsl/families/mamba2.yaml --H 16 --B 1 --T 32768 --decode 1 --reps 1 --no-bwd > $OUT/ncu-seg.log 2>&1
echo "ncu rc=$?"; grep -E "^  ssmc_|duration|pct" $OUT/ncu-seg.log | tail -8
for r in 1 2; do
  PYTHONPATH=.fla timeout 150 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 2,16384,16,128 2>&1 | tee -a $OUT/fla.txt | tail -3
done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
