#!/bin/bash
# session 19 call 2: per-stage times (ncu) of the backward, GDN and Mamba-2 bf16 B8 T4096 H16, tree (44d6ed5)
# against 276419f
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
for sp in gated_deltanet mamba2; do
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__inst_executed.sum,smsp__cycles_active.avg -k regex:"_(fprep|fstate|fscan|bprep|bstate|bscan|bval|bgrad|brows|breduce)$" --launch-count 9 --csv --print-units base \
      $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$sp.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu-$sp-$(basename $v).csv 2> $OUT/ncu-$sp-$(basename $v).err
    python3 - $OUT/ncu-$sp-$(basename $v).csv <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value')
d={}
for r in rows[1:]:
  k=r[ki].split('_')[-1]; d.setdefault(k,{})[r[mi]]=float(r[vi].replace(',',''))
for k,m in d.items(): print(sys.argv[1].split('/')[-1], k, 'us=%.1f'%(m['gpu__time_duration.sum']/1e3), 'rdGB=%.2f'%(m['dram__bytes_read.sum']/1e9), 'wrGB=%.2f'%(m['dram__bytes_write.sum']/1e9), 'Ginst=%.3f'%(m['sm__inst_executed.sum']/1e9))
PY
  done
done | tee $OUT/stages.txt
cd $OUT && tar czf call2.tgz *.csv *.err stages.txt
