#!/bin/bash
# s62 call 3: bgrad's key and query tiles fetched together (non-BG3 modules with one query term: Mamba-2, GLA, KDA) in
# the working tree (tree) against f688526 (tpl-base); GDN's bgrad with its value loop alone (tpl-loop, ncu only);
# warp samples per source line (ncu SourceCounters, line info) of the tree's Mamba-2 and GDN bgrad
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
for r in 1 2; do for v in tree base; do t=(); [ $v = base ] && t=(--templates .gpu/tpl-base)
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 --rows bwd-saved,fwd+bwd-saved --decode 1 --reps 20 2>&1 \
    | grep -E " bwd-saved | fwd\+bwd-saved |error" | sed "s/^/r$r $v /" | tee -a $OUT/ab.txt
done; done
csv=$(mktemp)
for vs in "tree mamba2" "base mamba2" "loop gated_deltanet"; do set -- $vs
  t=(); [ $1 = tree ] || t=(--templates .gpu/tpl-$1)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda --dtype bf16 "${t[@]}" \
    --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$2.yaml > $csv 2>/dev/null
  { echo "== $1 $2"; python3 bench/ncu_durations.py $csv | grep -v probe; } | tee -a $OUT/durations.txt
done
for s in mamba2 gla; do
  timeout 150 .gpu/ssmc check --backend cuda --quick dsl/families/$s.yaml > $OUT/check_$s.txt 2>&1; echo "quick $s rc=$? $(tail -n1 $OUT/check_$s.txt)" | tee -a $OUT/checks.txt
  grep FAIL $OUT/check_$s.txt | head -5
done
export SSMC_NVRTC_LINEINFO=1
for s in mamba2 gated_deltanet; do
  timeout 90 ncu --clock-control none -k regex:"bf16_bgrad\$" --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats \
    --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis -o /tmp/r_$s .gpu/ssmc bench --backend cuda --dtype bf16 \
    --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$s.yaml > $OUT/ncu_$s.log 2>&1
  ncu -i /tmp/r_$s.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $OUT/cs_${s}_bgrad.csv.xz
  ncu -i /tmp/r_$s.ncu-rep --page details > $OUT/details_${s}_bgrad.txt 2>&1
  grep -E "Duration|DRAM Throughput" $OUT/details_${s}_bgrad.txt | head -3
done
