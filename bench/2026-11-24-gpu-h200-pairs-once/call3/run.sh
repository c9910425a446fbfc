#!/bin/bash
# session 19 call 3: Mamba-2 bf16 bgrad with one key tile (BK = K = 128, 512 threads) — working tree against
# 33b4441 (.gpu/tpl-33b4441); A/B two rounds at B8 T4096 and B1 T32768 H16; per-stage ncu times; check
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
M=dsl/families/mamba2.yaml
for r in 1 2; do
  for sh in "--B 8 --T 4096" "--B 1 --T 32768"; do
    for v in tree $base; do
      t=(); [ $v = tree ] || t=(--templates $v)
      timeout 70 $S bench --backend cuda --dtype bf16 "${t[@]}" $M $sh --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd\+bwd) " | sed "s/^/round$r $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
    done
  done
done
for v in tree $base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 100 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum -k regex:"_(bgrad)$" --launch-count 2 --csv --print-units base \
    $S bench --backend cuda --dtype bf16 "${t[@]}" $M --B 8 --T 4096 --H 16 --decode 1 --reps 1 2>/dev/null | grep -E "gpu__time|dram" | sed "s/^/$(basename $v) /" | tee -a $OUT/ncu-bgrad.txt | cut -c1-30,200-
done
timeout 100 $S check --backend cuda --quick $M > $OUT/check-mamba2.txt 2>&1; echo "check rc=$?"; grep "^check:" $OUT/check-mamba2.txt
cd $OUT && tar czf call3.tgz *.txt
