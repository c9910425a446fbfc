#!/bin/bash
# Session 49, call 5: where call 2-4's racecheck hazards in the producer form of bgrad come from. synccheck of
# emu_bgw_delta's bgrad (the tree, 9e9d256); racecheck of its bgrad with the producer warpgroup off (.gpu/tpl-nopf:
# every thread loads, PF = false), the same loads and products otherwise.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
san() { # tool, name, extra sanitizer args, ssmc args...
  local tool=$1 n=$2 x=$3; shift 3
  timeout 200 compute-sanitizer --tool $tool $x --error-exitcode 9 $S check --backend cuda --quick "$@" > /tmp/s-$n.txt 2>&1
  echo "== $n rc=$?"; grep -E "comparisons|SUMMARY" /tmp/s-$n.txt
  grep -E "^========= +(Error|Race|Warning|Barrier|Invalid)" /tmp/s-$n.txt | sed 's/+0x[0-9a-f]*//' | sort | uniq -c | sort -rn | head -8
}
{ SSMC_NVRTC_LINEINFO=1 san synccheck sync "--kernel-name kns=bgrad" tests/fixtures/specs/emu_bgw_delta.yaml
  san racecheck nopf "--kernel-name kns=bgrad" --templates .gpu/tpl-nopf tests/fixtures/specs/emu_bgw_delta.yaml; } 2>&1 | tee $OUT/sanitizer.txt
head -c 30000 /tmp/s-sync.txt > $OUT/sync-head.txt
