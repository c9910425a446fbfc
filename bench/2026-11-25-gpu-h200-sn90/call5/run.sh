#!/bin/bash
# session 26 call 5: is call 4's bgrad racecheck finding real? racecheck (backward stages, bf16) of the K = 128,
# V = 32 spec and of tests/fixtures/specs/emu_bgw_delta.yaml with the tree's templates (59c1e5f+: bgrad's producer
# form) and with nopf (the same, PF = false: every thread loads, two buffers under one barrier a step)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for spec in bench/2026-11-25-gpu-h200-sn90/call5/k128v32.yaml tests/fixtures/specs/emu_bgw_delta.yaml; do
  for v in tree nopf; do
    o=$OUT/rc-$(basename $spec .yaml)-$v.txt
    timeout 200 compute-sanitizer --tool racecheck --print-limit 50 $S check --backend cuda --quick --templates .gpu/tpl-$v $spec > $o 2>&1
    echo "$(basename $spec) $v rc=$? $(grep '^check:' $o) $(tail -1 $o)"
    grep "Race reported" $o | sed 's/.*access at //; s/+0x.*//' | sort | uniq -c
  done
done
