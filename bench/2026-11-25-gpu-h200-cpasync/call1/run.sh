#!/bin/bash
# session 25 call 1 (the state passes' tiles by cp.async): GDN check (bf16); B1 T32768 H16 and B8 T4096 H16,
# the tree against 8307f8a's templates (session 24's last); fla's chunk_gated_delta_rule in the same call;
# racecheck of the emulated delta fixture's kernels (small shapes, every stage)
D=bench/2026-11-25-gpu-h200-cpasync
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
timeout 150 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gdn.txt; grep FAIL $OUT/check-gdn.txt | head -3
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree $base"
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree $base"
PYTHONPATH=.fla timeout 150 python3 $D/fla_gdn.py 8,4096,16,128 1,32768,16,128 2>&1 | tee $OUT/fla.txt | tail -3
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "$base tree"
timeout 120 compute-sanitizer --tool racecheck --print-limit 5 $S check --backend cuda --quick tests/fixtures/specs/emu_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -3 $OUT/racecheck.txt
