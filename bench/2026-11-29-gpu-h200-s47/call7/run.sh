#!/bin/bash
# session 47 call 7 (the call 6 pack plus two timing-only variants of the HB keep form, not correct kernels, made from the
# tree's templates on the workstation: tpl-nokdu without the producer's kd and U stores, tpl-nostate without the
# consumers' chunk-start state stores): fused90_keep under ncu (no clock control), Mamba-2 bf16 B8 T4096 H16
# fwd+bwd-saved, each variant and the tree, and c735580's tf32 keep form. Which of the kept forward's 1.07 GB of
# fp32 stores costs what.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for v in tree tpl-nokdu tpl-nostate tpl-c735580; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 100 ncu --clock-control none -k regex:_fused90_keep --metrics gpu__time_duration.sum,dram__bytes_write.sum,dram__bytes_read.sum \
    --print-units base --csv $S bench --backend cuda --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 \
    dsl/families/mamba2.yaml > /tmp/$v.csv 2>/tmp/$v.err
  echo "$v ncu rc=$?"
  python3 - /tmp/$v.csv $v <<'PY' | tee -a $OUT/keep.txt
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; mi, vi = h.index('Metric Name'), h.index('Metric Value')
d = collections.defaultdict(list)
for r in rows[1:]: d[r[mi]].append(float(r[vi].replace(',', '')))
med = lambda v: sorted(v)[len(v) // 2]
print(sys.argv[2], 'fused90_keep n=%d' % len(d['gpu__time_duration.sum']), 'median %.3f ms' % (med(d['gpu__time_duration.sum']) / 1e6),
      'DRAM write %.0f MB read %.0f MB' % (med(d['dram__bytes_write.sum']) / 1e6, med(d['dram__bytes_read.sum']) / 1e6))
PY
done
