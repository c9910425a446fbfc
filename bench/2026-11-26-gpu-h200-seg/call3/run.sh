#!/bin/bash
# session 34 call 3: the segment pass's factors a chunk ahead (warp 0) beside the keys (the other warps), its copies
# after the products' issue, against 4228b6f (its own binary, .gpu/ssmc-base); checks and sanitizers of the split
# rows; ncu durations; fla in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
B=.gpu/ssmc-base
git -C . log --oneline -1 2>/dev/null | tee $OUT/commit.txt
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 200 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml --no-bwd
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
chk tests/fixtures/specs/cuda_f90_k48.yaml --no-bwd --quick
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/emu_f90.yaml > $OUT/san-$tool.txt 2>&1
  echo "$tool emu_f90 rc=$? $(grep '^check:' $OUT/san-$tool.txt) $(tail -1 $OUT/san-$tool.txt)"
done
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; base) x=($B bench --templates .gpu/tpl-4228b6f);; esac
    timeout 150 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-split " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "new base"; done
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "new base"
run 1 dsl/families/mamba2.yaml "--B 2 --T 16384 --H 16" "new base"
PYTHONPATH=.fla timeout 150 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 2,16384,16,128 2>&1 | tee -a $OUT/fla.txt | tail -3
timeout 100 ncu -k regex:"fused90_seg" -c 1 $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/ncu.txt 2>&1
echo "ncu rc=$?"; grep -E "Duration|DRAM Throughput|Compute \(SM\)" $OUT/ncu.txt | head -4
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt ncu.txt && rm -f check-*.txt san-*.txt ncu.txt
