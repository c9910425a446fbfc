#!/bin/bash
# Session 48, call 1: times session 47's next/kdu-bprep.diff (tile_regs form; applied to the tree, packed with
# scripts/gpu-pack.sh HEAD so "tree" is the diff's templates and .gpu/tpl-<HEAD> the baseline). Mamba-2 bf16 B8 T4096
# H16 bwd, bwd-saved, fwd+bwd-saved, two rounds A/B; Mamba-2's full check; GKA's quick check (its generated code
# changed too: scalar decay, no erase); compute-sanitizer on Mamba-2's quick check; ncu stage durations.
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
timeout 120 $S check --backend cuda --quick dsl/families/gated_kalmanet.yaml > $OUT/check-gka.txt 2>&1
echo "gka rc=$? $(tail -1 $OUT/check-gka.txt)"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick dsl/families/mamba2.yaml \
    > /tmp/san-$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 /tmp/san-$tool.txt
done 2>&1 | tee $OUT/sanitizer.txt
for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_kalmanet.yaml --B 8 --T 4096 --H 16 \
    --rows fwd+bwd-saved --reps 5 2>&1 | grep -E "fwd\+bwd-saved |rror" | sed "s|^|gka $v |" | tee -a $OUT/ab.txt
done
