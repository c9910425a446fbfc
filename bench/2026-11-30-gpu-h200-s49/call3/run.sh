#!/bin/bash
# Session 49, call 3: call 2's racecheck hazards in emu_bgw_delta's bgrad (a stage the tree did not change): the same
# racecheck with the session start's templates (.gpu/tpl-<HEAD>); the tree's with line info (SSMC_NVRTC_LINEINFO=1)
# and bgrad alone; GDN's built-in bgrad alone (--kernel-name kns=bgrad).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
B=$(ls -d .gpu/tpl-* | head -1)
rc() { # name, extra sanitizer args, ssmc args...
  local n=$1 x=$2; shift 2
  timeout 200 compute-sanitizer --tool racecheck $x --error-exitcode 9 $S check --backend cuda --quick "$@" > /tmp/rc-$n.txt 2>&1
  echo "== $n rc=$?"; grep -E "comparisons|RACECHECK SUMMARY" /tmp/rc-$n.txt
  grep -E "^========= +(Error|Race|Warning)" /tmp/rc-$n.txt | sed 's/+0x[0-9a-f]*//' | sort | uniq -c | sort -rn | head -8
}
{ rc head "" --templates $B tests/fixtures/specs/emu_bgw_delta.yaml
  SSMC_NVRTC_LINEINFO=1 rc tree-lines "--kernel-name kns=bgrad" tests/fixtures/specs/emu_bgw_delta.yaml
  rc gdn "--kernel-name kns=bgrad" dsl/families/gated_deltanet.yaml
  rc m2 "--kernel-name kns=bgrad" dsl/families/mamba2.yaml; } 2>&1 | tee $OUT/racecheck.txt
head -c 60000 /tmp/rc-tree-lines.txt > $OUT/tree-lines-head.txt
