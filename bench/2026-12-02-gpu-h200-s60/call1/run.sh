#!/bin/bash
# s60 call 1: bgrad's P1..P3 and dk's row tile at a pitch of 72 floats (p72: BKP4 = ld8(BK); the wgmma accumulators'
# float2 stores and the tiles' row reads 2-way bank-conflicted at 68) against the tree (1aec187); GDN, DeltaNet,
# Mamba-2 bf16 two rounds; the tree's GKA and GDN K = V = 64 H32 once; ncu per stage at B8; quick checks on the GPU of
# every built-in family with the tree (1aec187: the workspace rows of 32 floats) and of GDN, DeltaNet, Mamba-2 with p72.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for sh in "8 4096 gated_deltanet" "8 4096 deltanet" "8 4096 mamba2" "1 32768 gated_deltanet"; do set -- $sh
  vs="tree p72 tree p72"; [ $1 = 1 ] && vs="tree p72"
  for v in $vs; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
timeout 90 .gpu/ssmc bench --backend cuda --dtype bf16 bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml --B 8 --T 4096 --H 32 \
  --rows fwd,bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E "fwd|bwd|rror" | sed "s/^/tree gdn_k64 B8 H32 /" | tee -a $OUT/ab.txt
timeout 120 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/gated_kalmanet.yaml --B 8 --T 4096 --H 16 \
  --rows fwd,bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E "fwd|bwd|rror" | sed "s/^/tree gka B8 /" | tee -a $OUT/ab.txt
for v in tree p72; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for f in gated_deltanet mamba2; do
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v $f B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
cat $OUT/durations.txt
for v in tree p72; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/mamba2.yaml tests/fixtures/specs/emu_split_delta.yaml dsl/families/gla.yaml dsl/families/kda.yaml dsl/families/gated_kalmanet.yaml; do
    [ $v = p72 ] && case $f in *gla*|*kda*|*kalmanet*|*emu_*) continue;; esac
    timeout 200 .gpu/ssmc check --backend cuda --quick $f $t > /tmp/q.txt 2>&1
    echo "quick $v $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -8 >> $OUT/checks.txt
  done
done
