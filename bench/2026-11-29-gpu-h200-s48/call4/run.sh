#!/bin/bash
# Session 48, call 4: call 3's form with a barrier after bval's scalar loads (racecheck's 12 hazards there: warp 0's
# sum of the log decays read tokens other threads had loaded). compute-sanitizer racecheck and memcheck on Mamba-2's
# and emu_scalar_v80's quick checks; Mamba-2 bf16 B8 fwd+bwd-saved once.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for s in dsl/families/mamba2.yaml tests/fixtures/specs/emu_scalar_v80.yaml; do for tool in racecheck memcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick $s > /tmp/san.txt 2>&1
  echo "$(basename $s .yaml) $tool rc=$?"; tail -2 /tmp/san.txt; grep -E "Race reported" /tmp/san.txt | sort | uniq -c | head
done; done 2>&1 | tee $OUT/sanitizer.txt
timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 --rows fwd+bwd-saved --reps 10 2>&1 |
  grep -E "fwd\+bwd-saved |rror" | tee $OUT/ab.txt
