#!/bin/bash
# session 29 call 6: the working tree's fused90_seg (a segment's chunks from its last to its first, the keys
# carrying the decay to the segment's end, so the update needs no decay of the state: two chunks in flight) against
# 8d4562e; checks and racecheck of the split rows; fla in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-8d4562e
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 120 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split y" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml --no-bwd --quick
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/emu_f90.yaml > $OUT/san-racecheck-emu_f90.txt 2>&1
echo "racecheck emu_f90 rc=$? $(grep '^check:' $OUT/san-racecheck-emu_f90.txt) $(tail -n 1 $OUT/san-racecheck-emu_f90.txt)"
run() { # round spec shape variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-split " | sed "s/^/round$1 $(basename $v) $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $10}'
  done
}
run 1 dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "tree $base"
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "tree $base"
PYTHONPATH=.fla timeout 60 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 2>&1 | tee -a $OUT/fla.txt | tail -2
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
