#!/bin/bash
# Session 49, call 6: bgrad's producer / consumer barriers in their non-aligned forms (barrier.sync / barrier.arrive,
# and barrier.sync 0 for the one after the loops, which the two sides reach from different places; "tree") against
# 9e9d256's (.gpu/tpl-*): synccheck and racecheck of emu_bgw_delta's bgrad and racecheck of GDN's; GDN bf16 B8 T4096
# H16 bwd-saved and fwd+bwd-saved, two rounds interleaved.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
B=$(ls -d .gpu/tpl-* | head -1)
san() { # tool, name, extra sanitizer args, ssmc args...
  local tool=$1 n=$2 x=$3; shift 3
  timeout 200 compute-sanitizer --tool $tool $x --error-exitcode 9 $S check --backend cuda --quick "$@" > /tmp/s-$n.txt 2>&1
  echo "== $n rc=$?"; grep -E "comparisons|SUMMARY" /tmp/s-$n.txt
  grep -E "^========= +(Error|Race|Warning|Barrier|Invalid)" /tmp/s-$n.txt | sed 's/+0x[0-9a-f]*//' | sort | uniq -c | sort -rn | head -6
}
{ san synccheck sync "--kernel-name kns=bgrad" tests/fixtures/specs/emu_bgw_delta.yaml
  san racecheck race "--kernel-name kns=bgrad" tests/fixtures/specs/emu_bgw_delta.yaml
  san racecheck gdn "--kernel-name kns=bgrad" dsl/families/gated_deltanet.yaml; } 2>&1 | tee $OUT/sanitizer.txt
for r in 1 2; do for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
