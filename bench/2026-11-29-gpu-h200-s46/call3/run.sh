#!/bin/bash
# session 46 call 3 (b12052c): every test fixture spec, examples/ and four specs no session had run
# (../unseen/), `check --backend cuda --quick` on the H200 (forward variants, backward, decode against the fp64
# oracle, f32 and bf16), six at a time (NVRTC compiles on the host's cores); one summary line a spec.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
mkdir -p /tmp/c
one() {
  n=$(basename $1 .yaml); t0=$(date +%s)
  timeout 280 $S check --backend cuda --quick $1 > /tmp/c/$n.txt 2>&1; rc=$?
  echo "$n rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 /tmp/c/$n.txt | cut -c1-100)"
}
export -f one; export S
ls bench/2026-11-29-gpu-h200-s46/unseen/*.yaml examples/*.yaml tests/fixtures/specs/*.yaml |
  xargs -P 6 -I{} bash -c 'one {}' | sort | tee $OUT/summary.txt
grep -l -E "FAIL|error" /tmp/c/*.txt | xargs -r grep -h -E "FAIL|error" | head -40 > $OUT/failures.txt
tar -cJf $OUT/logs.tar.xz -C /tmp/c .
