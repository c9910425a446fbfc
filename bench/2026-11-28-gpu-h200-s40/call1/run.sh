#!/bin/bash
# session 40 call 1: bval's T by t_form (NEW) against the session start's templates (6f5656c): GDN bf16 checks with the
# backward (--quick), compute-sanitizer (memcheck, racecheck) on prep_fused (t_form's final form, not rerun in s39)
# and bval (the K = 32 fixture), GDN B8 T4096 H16 fwd+bwd (two rounds), ncu stage times of the new backward, fla's
# fwd+bwd in the same call; the launch-latency probe (../latency.cu) under each scheduling flag
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-28-gpu-h200-s40
G=dsl/families/gated_deltanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
nvcc -O2 -o /tmp/latency $R/latency.cu && for m in auto spin yield blocking; do /tmp/latency $m; done | tee $OUT/latency.txt
timeout 150 $S check --backend cuda --quick $G > $OUT/check.txt 2>&1; echo "check gdn rc=$?"
grep -E "FAIL|comparisons" $OUT/check.txt
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --kernel-regex 'kns=prep_fused|_bval' --error-exitcode 9 $S check --backend cuda --quick $F/emu_f90_delta.yaml > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/san-$tool.txt
done
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 120 "${x[@]}" --backend cuda --dtype bf16 $2 $3 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
run 1 $G "--B 8 --T 4096 --H 16" "new 6f5656c"
run 2 $G "--B 8 --T 4096 --H 16" "new 6f5656c"
timeout 150 ncu --metrics gpu__time_duration.sum --csv $S bench --backend cuda --dtype bf16 --decode 1 --reps 1 $G --B 8 --T 4096 --H 16 > /tmp/ncu.csv 2>/dev/null
python3 - /tmp/ncu.csv <<'PY' | tee $OUT/stages.txt
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value')
t=collections.OrderedDict()
for r in rows[1:]:
  n=r[ki].split('(')[0].split('bf16_')[-1]; t.setdefault(n,[]).append(float(r[vi].replace(',',''))/1000)
print('ncu (us; last launch of each):', ' '.join(f"{n} {v[-1]:.0f}" for n,v in t.items()))
PY
PYTHONPATH=.fla timeout 200 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
