#!/bin/bash
# Prepared in session 49, not run: the first step of bstate-dr.md, bench/2026-11-30-gpu-h200-s49/next/bstate-dr.diff
# (bstate forms dr = T' du with T from WS_T and writes it in du's place, straight from the product; bval only reads
# dr; dZ_L's chunk-local part read by bstate's update from global memory (mm's cad with its own row stride ldd,
# prefetched into L2 as the step starts), which makes room for T's tile at BVB = 64 under the 160 KB rule).
# Emulated in session 49 (all pass): emu_delta (sm_80) 262/262, emu_diag_delta_c64 262/262, emu_bgw_delta
# (sm_90a, SSMC_EMU_TC=3) 270/270 with every gradient row within 30% of the tree's, emu_f90_delta (sm_90a) 262/262,
# emu_delta_c16 (sm_90a, TC=3) 262/262, edge dg bf16 2.46e-3 (tree 2.49e-3), f32 1.35e-3 (1.36e-3).
# NVRTC 13: GDN bf16 bstate sm_90a 128 registers, 12 B spilled (tree: 127, none), bstate_n 197 (147).
# Pack (workstation): git apply the diff into a scratch copy of templates/ -> .gpu/tpl-bsdr (all four .tpl), then
# scripts/gpu-pack.sh HEAD with it added and re-tarred. "tree" the landed templates.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-bsdr; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
for v in tree .gpu/tpl-bsdr; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
  echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
timeout 150 $S check --backend cuda --templates .gpu/tpl-bsdr dsl/families/gated_deltanet.yaml > /tmp/full.txt 2>&1
echo "full gdn rc=$? $(tail -n1 /tmp/full.txt)" | tee $OUT/checks.txt
