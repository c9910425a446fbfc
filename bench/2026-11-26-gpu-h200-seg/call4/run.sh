#!/bin/bash
# session 34 call 4: the segment pass with V' diag(f) as the register operand A (no update keys in shared memory, one
# barrier a chunk, tiles four chunks ahead) against c079ef4's (its keys made in shared memory), same binary; fla in
# the same call; checks and sanitizers of the split rows; ncu durations. Benches first (the call's budget is short).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 100 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-split " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
run 1 dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "new c079ef4"
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "new c079ef4"
run 1 dsl/families/mamba2.yaml "--B 2 --T 16384 --H 16" "new c079ef4"
PYTHONPATH=.fla timeout 100 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 2,16384,16,128 2>&1 | tee -a $OUT/fla.txt | tail -3
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 100 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml --no-bwd
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd --quick
timeout 60 compute-sanitizer --tool racecheck --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/emu_f90.yaml > $OUT/san-racecheck.txt 2>&1
echo "racecheck emu_f90 rc=$? $(grep '^check:' $OUT/san-racecheck.txt) $(tail -1 $OUT/san-racecheck.txt)"
timeout 60 compute-sanitizer --tool memcheck --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/emu_f90.yaml > $OUT/san-memcheck.txt 2>&1
echo "memcheck emu_f90 rc=$? $(grep '^check:' $OUT/san-memcheck.txt) $(tail -1 $OUT/san-memcheck.txt)"
timeout 60 ncu -k regex:"fused90_seg" -c 1 $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/ncu.txt 2>&1
echo "ncu rc=$?"; grep -E "Duration|DRAM Throughput|Compute \(SM\)" $OUT/ncu.txt | head -4
