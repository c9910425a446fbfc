#!/bin/bash
# session 47 call 2 (tree: c0bbdff + the two-term query's fetch at the chunk start + hd-regs; packed with
# scripts/gpu-pack.sh c0bbdff): (a) ncu stage durations (no clock control) of the bf16 forwards, GDN B8 T4096 H16,
# Mamba-2 B2 T16384 H16 and B1 T32768 H16; (b) the unseen two-term query u_mamba_q2_k128 (fused90 spilled 32 B,
# its keep form 116 B; now none): fwd-fused90 and fwd+bwd-saved, tree vs tpl-c0bbdff, two rounds, and its quick
# check with the tree; (c) the quick check of the unseen u_gdn_k128v64 with the tree (hd-regs).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
U=bench/2026-11-29-gpu-h200-s46/unseen
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for job in "gated_deltanet 8 4096" "mamba2 2 16384" "mamba2 1 32768"; do set -- $job
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 --rows fwd --reps 1 --B $2 --T $3 --H 16 dsl/families/$1.yaml > /tmp/$1.csv 2>/tmp/$1.err
  echo "$1 B$2 ncu rc=$?"; tail -2 /tmp/$1.err
  python3 - /tmp/$1.csv <<'PY' | sed "s|^|$1 B$2 |" | tee -a $OUT/durations.txt
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi = h.index('Kernel Name'), h.index('Metric Value')
d = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split('_bf16_')[-1].split('(')[0]
    d.setdefault(k, []).append(float(r[vi].replace(',', '')) / 1e6)
for k, v in d.items(): print(f"{k:16s} n={len(v):3d} last={v[-1]:8.3f} ms median={sorted(v)[len(v)//2]:8.3f} ms")
PY
done
for r in 1 2; do for v in tree tpl-c0bbdff; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $U/u_mamba_q2_k128.yaml --B 8 --T 4096 --H 16 \
    --rows fwd-fused90,fwd+bwd-saved --reps 10 2>&1 | grep -E " fwd-fused90 | fwd\+bwd-saved |rror" | sed "s|^|round$r $v |" |
    tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
for f in u_mamba_q2_k128 u_gdn_k128v64; do
  timeout 150 $S check --backend cuda --quick $U/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/check-$f.txt)"
done
