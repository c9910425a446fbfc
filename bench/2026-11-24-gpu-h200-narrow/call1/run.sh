#!/bin/bash
# session 17 call 1 (tree at c80b06d): GDN with the module value tile 64 / 32 / 16 (the sequential state
# stages' grid), B1 T32768 and B8 T4096 H16 bf16. The specs: dsl/families/gated_deltanet.yaml with
# `bv: [16, 32, 64, 128]` and `default: {bk: 64, bv: N}` (made on the workstation, copied into .gpu/specs/).
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for bv in 64 32 16; do
  for sh in "--B 1 --T 32768" "--B 8 --T 4096"; do
    echo "== bv $bv $sh"
    $S bench --backend cuda --dtype bf16 --decode 1 .gpu/specs/gdn_bv$bv.yaml $sh --H 16 2>&1 | grep -i "fwd\|bwd\|forward\|backward" | head -8
  done
done
for bv in 64 16; do
  echo "== ncu bv $bv B1 T32768"
  timeout 150 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 .gpu/specs/gdn_bv$bv.yaml --B 1 --T 32768 --H 16 > $OUT/ncu$bv.csv 2>/dev/null
  python3 - $OUT/ncu$bv.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('_')[-1]; t.setdefault(n,[]).append(float(r[vi].replace(',',''))/1000)
for n,v in t.items(): print(n, len(v), 'median us %.0f'%sorted(v)[len(v)//2])
PY
done
