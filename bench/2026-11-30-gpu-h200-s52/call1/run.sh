#!/bin/bash
# Prepared in session 51 for the next session's first call: bgrad without Z_L's loads (bgrad-no-zl.diff) and bprep's
# value loop on wgmma (bprep-wgmma.diff), each alone and together, against their base, on the H200.
# On the workstation, at the base commit REV with both diffs applied to the tree:
#   scripts/gpu-pack.sh REV
#   for d in nozl bpw; do mkdir -p .gpu/tpl-$d && git archive REV templates | tar -x -C .gpu/tpl-$d --strip-components=1; done
#   (cd .gpu/tpl-nozl && patch -p2 < ../../bench/2026-11-30-gpu-h200-s51/next/bgrad-no-zl.diff)
#   (cd .gpu/tpl-bpw && patch -p2 < ../../bench/2026-11-30-gpu-h200-s51/next/bprep-wgmma.diff)
#   mv .gpu/tpl-$(git rev-parse --short REV) .gpu/tpl-base
#   for f in gated_deltanet mamba2; do for t in "" "--templates .gpu/tpl-base" "--templates .gpu/tpl-nozl" "--templates .gpu/tpl-bpw"; do
#     SSMC_CACHE_DIR=$PWD/.gpu/cache .gpu/ssmc compile dsl/families/$f.yaml --arch sm_90a $t; done; done
#   cp bench/2026-11-30-gpu-h200-s51/next/run.sh .gpu/ && rm -rf .gpu-pack && mkdir .gpu-pack && tar -cJf .gpu-pack/gpu.tar.xz .gpu
# On the GPU machine (carry .gpu-pack): tar -xJf .gpu-pack/gpu.tar.xz && bash .gpu/run.sh
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in .gpu/tpl-base .gpu/tpl-nozl .gpu/tpl-bpw both; do
  t=(); [ $v = both ] || t=(--templates $v)
  for f in gated_deltanet mamba2; do
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for f in gated_deltanet mamba2 deltanet; do
timeout 90 $S check --backend cuda --quick dsl/families/$f.yaml > /tmp/q.txt 2>&1
echo "quick $f (both) rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for v in .gpu/tpl-base both; do t=(); [ $v = both ] || t=(--templates $v)
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
