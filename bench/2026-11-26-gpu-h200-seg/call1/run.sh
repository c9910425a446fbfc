#!/bin/bash
# session 34 call 1: 9eda7c2, the split forward's segment pass as its own kernel (fused90_seg: a reduction over the
# segment's chunks, last to first; tiles two chunks ahead), against 4228b6f (fused90's SEG form: a producer warpgroup a
# chunk ahead of two consumers) with its own binary (.gpu/ssmc-base: the launch line's split= changed); checks and
# sanitizers of the split rows; ncu of both segment passes; fla in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
B=.gpu/ssmc-base
base=.gpu/tpl-4228b6f
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/gpu.txt
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 200 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml --no-bwd
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
chk tests/fixtures/specs/emu_f90.yaml --no-bwd
chk tests/fixtures/specs/emu_f90_v64.yaml --no-bwd
chk tests/fixtures/specs/cuda_f90_k48.yaml --no-bwd
for tool in memcheck racecheck; do
  for s in emu_f90 cuda_fused_k64; do
    timeout 120 compute-sanitizer --tool $tool --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/$s.yaml > $OUT/san-$tool-$s.txt 2>&1
    echo "$tool $s rc=$? $(grep '^check:' $OUT/san-$tool-$s.txt) $(tail -1 $OUT/san-$tool-$s.txt)"
  done
done
run() { # round spec shape variants(new|base)
  for v in $4; do
    if [ $v = new ]; then x=($S); else x=($B --templates $base); fi
    timeout 150 "${x[@]}" bench --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-(split|fused90) " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10, $12}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "new base"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "new base"
  run $r dsl/families/mamba2.yaml "--B 2 --T 16384 --H 16" "new base"
done
for b in 2 3 4; do run 1 dsl/families/mamba2.yaml "--B $b --T 4096 --H 16" "new"; done
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 4 --T 4096 --H 32" "new"
for r in 1 2; do
  PYTHONPATH=.fla timeout 150 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 2,16384,16,128 2>&1 | tee -a $OUT/fla.txt | tail -3
done
for v in new base; do
  if [ $v = new ]; then x=($S); else x=($B --templates $base); fi
  timeout 120 ncu --kernel-name regex:'fused90_seg|bf16_fused90$' --launch-count 4 "${x[@]}" bench --backend cuda --dtype bf16 --no-bwd dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/ncu-$v.txt 2>&1
  echo "ncu $v rc=$?"; grep -E "^  ssmc_|Duration|Memory Throughput|DRAM Throughput" $OUT/ncu-$v.txt | head -24
done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt ncu-*.txt && rm -f check-*.txt san-*.txt ncu-*.txt
