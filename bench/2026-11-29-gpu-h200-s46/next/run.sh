#!/bin/bash
# NOT RUN (for the next session; ~350 s of device time). Pack on the workstation: scripts/gpu-pack.sh b12052c
# (the tree and .gpu/tpl-b12052c: the templates before breduce was marked when=grouped, so the same binary launches
# it there), then mkdir -p .gpu/tpl-hdregs && cp templates/* .gpu/tpl-hdregs/ &&
# (cd .gpu/tpl-hdregs && patch -p0 cuda_kernel.cu.tpl < ../../bench/2026-11-29-gpu-h200-s46/next/hd-regs.diff) and
# tar .gpu into .gpu-pack again (gpu-pack.sh's last two lines). Times 01de853's breduce skip: GDN and Mamba-2 bf16 B8 T4096 H16 bwd-saved and fwd+bwd-saved, the tree
# against tpl-b12052c, two rounds (expected about -0.03 ms from call 1's ncu listing); then the quick checks of both
# with the tree (grouped heads run breduce; T=4096 rows do not).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for f in gated_deltanet mamba2; do for v in tree tpl-b12052c; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" | sed "s|^|round$r $v |" |
    tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done; done
for f in gated_deltanet mamba2; do
  timeout 150 $S check --backend cuda dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/check-$f.txt)"
done
# hd-regs.diff: fused90's erase form (HD) at V = 64 with one block an SM (K > 64: 256 threads) gives the producer 160
# and the consumer 240 registers (setmaxnreg; was 120 / 192, the 384-thread split): 0 B spilled where 292 B were
# (fused90) and 380 (fused90_split) at K = 128, V = 64 (NVRTC 13, compile). The tree against it, two rounds, forward
# rows of that form at B8 T4096 H16 and B1 T32768, then its quick check.
F=tests/fixtures/specs/emu_split_delta.yaml
for r in 1 2; do for v in tree tpl-hdregs; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  for s in "8 4096" "1 32768"; do set -- $s
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $F --B $1 --T $2 --H 16 --rows fwd-fused90,fwd-split --reps 10 2>&1 |
      grep -E " fwd-|rror" | sed "s|^|round$r $v |" | tee -a $OUT/hd.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
done; done
timeout 150 $S check --backend cuda --quick --templates .gpu/tpl-hdregs $F > $OUT/check-hdregs.txt 2>&1
echo "hdregs rc=$? $(tail -1 $OUT/check-hdregs.txt)"
