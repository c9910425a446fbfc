#!/bin/bash
# session 46 call 1 (b12052c): (1) fla's forward + backward kernel by kernel (fla_prof.py; fla-core 0.6.0 carried as
# a wheel in .whl); (2) ssmc's GDN and Mamba-2 bf16 forward + backward stages under ncu without clock control (the
# same clocks as fla's profile), B8 T4096 H16; (3) session 45's next/ilp.diff (tpl-ilp, packed as that run.sh's header
# says) against the tree: GLA and KDA bwd-saved, two rounds, and its quick checks.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s46/call1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)" | tee -a $OUT/env.txt
timeout 240 python3 $D/fla_prof.py > $OUT/fla.jsonl 2> /tmp/fla.err; echo "fla rc=$?"; tail -3 /tmp/fla.err
cut -c1-300 $OUT/fla.jsonl
for f in gated_deltanet mamba2; do
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda --dtype bf16 \
    --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml > /tmp/$f.csv 2>/tmp/$f.err
  echo "$f ncu rc=$?"
  python3 - /tmp/$f.csv <<'PY' > $OUT/durations-$f.txt
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi = h.index('Kernel Name'), h.index('Metric Value')
d = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split('_bf16_')[-1].split('(')[0]
    d.setdefault(k, []).append(float(r[vi].replace(',', '')) / 1e6)
for k, v in d.items(): print(f"{k:16s} n={len(v):3d} last={v[-1]:8.3f} ms median={sorted(v)[len(v)//2]:8.3f} ms")
PY
  cat $OUT/durations-$f.txt
done
for r in 1 2; do for f in gla kda; do for v in tree tpl-ilp; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved --reps 10 2>&1 | grep -E " bwd-saved |rror" | sed "s|^|round$r $v |" | tee -a $OUT/ab.txt |
    awk '{print $1, $2, $4, $5, $6, $8}'
done; done; done
for f in gla kda; do
  timeout 120 $S check --backend cuda --quick --templates .gpu/tpl-ilp dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/check-$f.txt)"
done
