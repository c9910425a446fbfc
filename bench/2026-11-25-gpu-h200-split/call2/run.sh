#!/bin/bash
# session 29 call 2: 1212d91, fused90_seg's tiles three chunks ahead (rings of four) against a chunk ahead (tpl-nb2,
# call 1's form); checks and sanitizers of the split rows; where split beats fused90 between 24% and 100% of the SMs
# (B2 / B3 T4096, B2 T16384); per-kernel times of the split forward (ncu); fla in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nb2=.gpu/tpl-nb2
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 200 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split y" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml --no-bwd
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
chk tests/fixtures/specs/emu_f90.yaml --no-bwd
for tool in memcheck racecheck; do
  for s in emu_f90 cuda_fused_k64; do
    timeout 120 compute-sanitizer --tool $tool --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/$s.yaml > $OUT/san-$tool-$s.txt 2>&1
    echo "$tool $s rc=$? $(grep '^check:' $OUT/san-$tool-$s.txt) $(tail -1 $OUT/san-$tool-$s.txt)"
  done
done
run() { # round spec shape variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 150 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? " | sed "s/^/round$1 $(basename $v) $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $5, $9, $11}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "tree $nb2"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "tree $nb2"
done
run 1 dsl/families/mamba2.yaml "--B 2 --T 4096 --H 16" "tree"
run 1 dsl/families/mamba2.yaml "--B 3 --T 4096 --H 16" "tree"
run 1 dsl/families/mamba2.yaml "--B 2 --T 16384 --H 16" "tree"
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 2 --T 4096 --H 32" "tree"
timeout 150 ncu -k regex:"fused90|_scan" -c 40 --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed $S bench --backend cuda --dtype bf16 dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu-split.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_|duration|dram__" $OUT/ncu-split.log | tail -24
for r in 1 2; do
  PYTHONPATH=.fla timeout 150 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 2,16384,16,128 2>&1 | tee -a $OUT/fla.txt | tail -3
done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
