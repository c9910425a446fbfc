#!/bin/bash
# s62 call 5: bval's keys (KDU_B: Mamba-2, GKA, my_ssm) fetched with du at its start, in flight under the scalars (tree)
# against 8a945fa (tpl-base); Mamba-2 B8 (two rounds) and B1 T32768 (once); ncu stages; quick checks
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
for r in 1 2; do for v in tree base; do t=(); [ $v = base ] && t=(--templates .gpu/tpl-base)
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 --rows bwd-saved,fwd+bwd-saved --decode 1 --reps 20 2>&1 \
    | grep -E " bwd-saved | fwd\+bwd-saved |error" | sed "s/^/r$r $v /" | tee -a $OUT/ab.txt
done; done
for v in tree base; do t=(); [ $v = base ] && t=(--templates .gpu/tpl-base)
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 --rows fwd+bwd-saved --decode 1 --reps 10 2>&1 \
    | grep -E " fwd\+bwd-saved |error" | sed "s/^/b1 $v /" | tee -a $OUT/ab.txt
done
csv=$(mktemp)
for v in tree base; do t=(); [ $v = tree ] || t=(--templates .gpu/tpl-$v)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" \
    --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml > $csv 2>/dev/null
  { echo "== $v mamba2"; python3 bench/ncu_durations.py $csv | grep -v probe; } | tee -a $OUT/ab.txt
done
for s in mamba2 gated_kalmanet; do
  timeout 200 .gpu/ssmc check --backend cuda --quick dsl/families/$s.yaml > /tmp/check_$s.txt 2>&1; echo "quick $s rc=$? $(tail -n1 /tmp/check_$s.txt)" | tee -a $OUT/ab.txt
  grep FAIL /tmp/check_$s.txt | head -5 | tee -a $OUT/ab.txt
done
