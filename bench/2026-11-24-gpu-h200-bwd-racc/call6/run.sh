#!/bin/bash
# session 16 call 6: warp stall reasons (per issued instruction) of the backward stages, Mamba-2 and GDN B8 (tree at 8bed25f)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
M=""
for r in barrier branch_resolving dispatch_stall drain imc_miss lg_throttle long_scoreboard math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait; do
  M="$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum$M"
for f in mamba2 gated_deltanet; do
  $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/$f.yaml --B 8 --T 4096 --H 16 >/dev/null 2>&1
  timeout 200 ncu -k regex:"_(bprep|bval|bgrad|bstate|fprep|fstate)" --metrics $M --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/stall-$f.csv 2>/dev/null
  python3 - $OUT/stall-$f.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('_')[-1]; t.setdefault(n,{})[r[mi]]=float(r[vi].replace(',',''))
for n,d in t.items():
  st={k.split('stalled_')[1].split('_per')[0]:v for k,v in d.items() if 'stalled' in k}
  top=sorted(st.items(), key=lambda x:-x[1])[:7]
  print(n, 'us %.0f'%(d['gpu__time_duration.sum']/1000), 'inst %.0fM'%(d['smsp__inst_executed.sum']/1e6), 'occ %.1f%%'%d['sm__warps_active.avg.pct_of_peak_sustained_active'], 'bankconf %.0fM'%(d['l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum']/1e6), 'total %.2f'%sum(st.values()), ' '.join('%s %.2f'%x for x in top))
PY
done
