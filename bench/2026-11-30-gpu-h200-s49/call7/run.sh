#!/bin/bash
# Session 49, call 7 (call 6's tree): racecheck of emu_bgw_delta's bgrad with --racecheck-indirect-barrier-dependency
# (ordering through chains of barriers); synccheck of the forward's producer forms (fused90: emu_f90 without an erase,
# emu_f90_delta with one; --no-bwd).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
san() { # tool, name, extra sanitizer args, ssmc args...
  local tool=$1 n=$2 x=$3; shift 3
  timeout 150 compute-sanitizer --tool $tool $x --error-exitcode 9 $S check --backend cuda --quick "$@" > /tmp/s-$n.txt 2>&1
  echo "== $n rc=$?"; grep -E "comparisons|SUMMARY" /tmp/s-$n.txt; grep -m3 -iE "unrecognized|unknown option|invalid" /tmp/s-$n.txt
  grep -E "^========= +(Error|Race|Warning|Barrier|Invalid)" /tmp/s-$n.txt | sed 's/+0x[0-9a-f]*//' | sort | uniq -c | sort -rn | head -6
}
{ san racecheck ind "--kernel-name kns=bgrad --racecheck-indirect-barrier-dependency yes" tests/fixtures/specs/emu_bgw_delta.yaml
  san synccheck f90 "--kernel-name kns=fused90" --no-bwd tests/fixtures/specs/emu_f90.yaml
  san synccheck f90d "--kernel-name kns=fused90" --no-bwd tests/fixtures/specs/emu_f90_delta.yaml; } 2>&1 | tee $OUT/sanitizer.txt
