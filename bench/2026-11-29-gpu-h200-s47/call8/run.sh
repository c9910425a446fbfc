#!/bin/bash
# session 47 call 8 (tree: c735580 + KDU_B: kd and U written by the backward's bprep, not by the kept forward (the
# HB form's keep entry fused90b_body<true>: chunk-start states and decays only) nor fprep; packed with
# scripts/gpu-pack.sh c735580): Mamba-2 bf16 B8 T4096 H16 bwd-saved, fwd+bwd-saved, bwd (recomputing), the tree
# against c735580's templates, two rounds; the full check of Mamba-2, the quick check of emu_f90 (HB at K = 32) with
# the tree; ncu stage durations of the tree's fwd+bwd-saved.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree tpl-c735580; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
timeout 100 $S check --backend cuda dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
echo "mamba2 rc=$? $(tail -1 $OUT/check-mamba2.txt)"
timeout 60 $S check --backend cuda --quick tests/fixtures/specs/emu_f90.yaml > $OUT/check-emu_f90.txt 2>&1
echo "emu_f90 rc=$? $(tail -1 $OUT/check-emu_f90.txt)"
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
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
