#!/bin/bash
# s62 call 4: bgrad's rows' decay factors (e^{b_t}, w_t e^{b_L - b_t}) once a row after the scalars (rows_factors) in the
# working tree (tree) against e4808de (tpl-base); Mamba-2 and GDN B8 (two rounds); quick checks
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
for r in 1 2; do for s in mamba2 gated_deltanet; do for v in tree base; do t=(); [ $v = base ] && t=(--templates .gpu/tpl-base)
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$s.yaml --B 8 --T 4096 --H 16 --rows bwd-saved,fwd+bwd-saved --decode 1 --reps 20 2>&1 \
    | grep -E " bwd-saved | fwd\+bwd-saved |error" | sed "s/^/r$r $v /" | tee -a $OUT/ab.txt
done; done; done
csv=$(mktemp)
for vs in "tree mamba2" "base mamba2" "tree gated_deltanet"; do set -- $vs
  t=(); [ $1 = tree ] || t=(--templates .gpu/tpl-$1)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" \
    --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$2.yaml > $csv 2>/dev/null
  { echo "== $1 $2"; python3 bench/ncu_durations.py $csv | grep -v probe; } | tee -a $OUT/ab.txt
done
for s in mamba2 gated_deltanet gated_kalmanet deltanet; do
  timeout 150 .gpu/ssmc check --backend cuda --quick dsl/families/$s.yaml > /tmp/check_$s.txt 2>&1; echo "quick $s rc=$? $(tail -n1 /tmp/check_$s.txt)" | tee -a $OUT/ab.txt
  grep FAIL /tmp/check_$s.txt | head -5 | tee -a $OUT/ab.txt
done
