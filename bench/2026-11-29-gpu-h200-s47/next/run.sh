#!/bin/bash
# NOT RUN (for the next session; ~200 s of device time). On the workstation: git apply
# bench/2026-11-29-gpu-h200-s47/next/kdu-bprep.diff && scripts/gpu-pack.sh HEAD && git checkout templates tests
# (the packed binary embeds the diff's templates: "tree"; .gpu/tpl-<HEAD> the baseline), carry .gpu-pack.
# kdu-bprep.diff: without an erase or per-key decays (KDU_B) kd and U are written by the backward's bprep from the
# inputs (tile_regs: all of a thread's loads in flight), not by the kept forward nor fprep; the fused slot's bf16 form
# (HB) gets its own keep entry (fused90b_body<true>: the chunk-start states only; the tf32 form ran before); bprep
# also writes the chunks' decays. With it the cuda, bwd and emu suites pass here (generated/ regenerated: ssmc gen).
# Session 47 measured its first form (bprep's stores element by element, call 8): fused90_keep 1.008 -> 0.478 ms but
# bprep 0.710 -> 1.246, fwd+bwd-saved 4.09 vs 4.02 (slower). This times the tile_regs form: Mamba-2 bf16 B8 T4096
# H16 fwd+bwd-saved, bwd-saved, bwd, two rounds; its full check; ncu stage durations. Land it only if faster, after
# the emulated suites (t_emu, t_bwd) pass with it.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
B=$(ls -d .gpu/tpl-* | head -1)
for r in 1 2; do for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
timeout 100 $S check --backend cuda dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
echo "mamba2 rc=$? $(tail -1 $OUT/check-mamba2.txt)"
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml > /tmp/m2.csv 2>/tmp/m2.err
python3 bench/ncu_durations.py /tmp/m2.csv | tee $OUT/durations.txt
