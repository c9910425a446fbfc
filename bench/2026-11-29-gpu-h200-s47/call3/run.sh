#!/bin/bash
# session 47 call 3 (fbce160, the same pack as call 2): (a) ncu stage durations (no clock control) of the forwards the
# runtime picks, bf16: Mamba-2's split forward at B2 T16384 H16 and B1 T32768 H16, GDN's fused90 at B8 T4096 H16 (call
# 2's `--rows fwd` was the staged variant); (b) compute-sanitizer memcheck and racecheck on the fused90 stages
# (--kernel-name regex:fused90) of this session's two changed forms: the two-term query (cuda_f90_q2_k128) and HD at
# V = 64 with one block an SM (emu_split_delta), check --quick with the backward.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for job in "mamba2 2 16384 fwd-split" "mamba2 1 32768 fwd-split" "gated_deltanet 8 4096 fwd-fused90"; do set -- $job
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 --rows $4 --reps 1 --B $2 --T $3 --H 16 dsl/families/$1.yaml > /tmp/$1.csv 2>/tmp/$1.err
  echo "$1 B$2 $4 ncu rc=$?"; tail -2 /tmp/$1.err
  python3 - /tmp/$1.csv <<'PY' | sed "s|^|$1 B$2 $4 |" | tee -a $OUT/durations.txt
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
for f in cuda_f90_q2_k128 emu_split_delta; do for tool in memcheck racecheck; do
  timeout 110 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name regex:fused90 $S check --backend cuda --quick \
    tests/fixtures/specs/$f.yaml > /tmp/san-$tool-$f.txt 2>&1
  echo "$f $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' /tmp/san-$tool-$f.txt | tr '\n' ' ')" | tee -a $OUT/sanitizer.txt
done; done
