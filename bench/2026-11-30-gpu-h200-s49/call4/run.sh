#!/bin/bash
# Session 49, call 4: bgrad's barrier after its producer / consumer loops as a named barrier (bar.sync 1 + 2 NBUF) in
# place of a __syncthreads that the producer reached at another place than the consumers ("tree", with call 1's T
# change): racecheck of emu_bgw_delta and of GDN's bgrad; GDN bwd-saved against .gpu/tpl-<HEAD> (session start).
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
{ rc bgw "" tests/fixtures/specs/emu_bgw_delta.yaml
  rc gdn "--kernel-name kns=bgrad" dsl/families/gated_deltanet.yaml; } 2>&1 | tee $OUT/racecheck.txt
for r in 1 2; do for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
