#!/bin/bash
# session 25 call 8 (2dac356, the review: the copy schedule as one helper, chain_steps; behaviour meant unchanged):
# GDN check (bf16), racecheck of emu_delta's kernels, GDN B1 T32768 H16 the tree against 975ee40's templates
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 150 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gdn.txt; grep FAIL $OUT/check-gdn.txt | head -3
timeout 120 compute-sanitizer --tool racecheck --print-limit 5 $S check --backend cuda --quick tests/fixtures/specs/emu_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -2 $OUT/racecheck.txt
for v in tree .gpu/tpl-975ee40; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/$(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $3, $4, $5, $7}' | grep -E "narrow|saved"
done
