#!/bin/bash
# session 29 call 1: the split forward (fused90's segments: fused90_seg, the scan over the segments, fused90 from
# each segment's start state) against staged / narrow / fused90 at few long sequences; checks (Mamba-2 with its
# backward, the bf16-form fixtures), sanitizers on a split run, fla's chunk_simple_gla at the same shapes
D=bench/2026-11-25-gpu-h200-split
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-d5fc47a
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 200 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "T=4096.*fwd-split y" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
chk tests/fixtures/specs/emu_f90_v64.yaml --no-bwd
chk tests/fixtures/specs/cuda_f90_k48.yaml --no-bwd
for tool in memcheck racecheck; do
  for s in emu_f90 emu_f90_v64; do
    timeout 120 compute-sanitizer --tool $tool --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/$s.yaml > $OUT/san-$tool-$s.txt 2>&1
    echo "$tool $s rc=$? $(grep '^check:' $OUT/san-$tool-$s.txt) $(tail -1 $OUT/san-$tool-$s.txt)"
  done
done
run() { # round spec shape
  timeout 150 $S bench --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? " | sed "s/^/round$1 $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $8, $10}'
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16"
done
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32"
run 1 dsl/families/mamba2.yaml "--B 1 --T 4096 --H 16"
run 1 dsl/families/mamba2.yaml "--B 1 --T 8192 --H 16"
run 1 dsl/families/mamba2.yaml "--B 1 --T 1024 --H 16"
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 4096 --H 32"
for r in 1 2; do
  PYTHONPATH=.fla timeout 150 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 1,32768,32,64 1,4096,16,128 2>&1 | tee -a $OUT/fla.txt | tail -3
done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
