#!/bin/bash
# session 47 call 6 (tree: c735580 + fused90's bf16 form (HB) keeping the forward: fused90b_body<true>; packed with
# scripts/gpu-pack.sh c735580): Mamba-2 bf16 B8 T4096 H16 fwd-fused90, bwd-saved, fwd+bwd-saved, the tree against
# c735580's templates (whose fused90_keep is the tf32 form), two rounds; the full check of Mamba-2 and the quick checks
# of the HB fixtures with the tree; ncu stage durations of the tree's fwd+bwd-saved; compute-sanitizer memcheck and
# racecheck on fused90_keep (emu_f90_v64, check --quick with the backward).
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for v in tree tpl-c735580; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows fwd-fused90,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " fwd-fused90 | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
timeout 150 $S check --backend cuda dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
echo "mamba2 rc=$? $(tail -1 $OUT/check-mamba2.txt)"
for f in emu_f90 emu_f90_v64 cuda_f90_k48; do
  timeout 100 $S check --backend cuda --quick tests/fixtures/specs/$f.yaml > /tmp/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 /tmp/check-$f.txt)" | tee -a $OUT/checks.txt
done
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml > /tmp/m2.csv 2>/tmp/m2.err
echo "ncu rc=$?"
python3 - /tmp/m2.csv <<'PY' | tee $OUT/durations.txt
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi = h.index('Kernel Name'), h.index('Metric Value')
d = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split('_bf16_')[-1].split('(')[0]
    d.setdefault(k, []).append(float(r[vi].replace(',', '')) / 1e6)
for k, v in d.items(): print(f"{k:16s} n={len(v):3d} last={v[-1]:8.3f} ms median={sorted(v)[len(v)//2]:8.3f} ms")
PY
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=fused90_keep $S check --backend cuda --quick \
    tests/fixtures/specs/emu_f90_v64.yaml > /tmp/san-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' /tmp/san-$tool.txt | tr '\n' ' ')" | tee -a $OUT/sanitizer.txt
done
