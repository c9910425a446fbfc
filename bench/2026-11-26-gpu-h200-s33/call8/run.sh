#!/bin/bash
# session 33 call 8 (16bceb7), an experiment for the next step, not a change: psolve90 without the products of the
# lo parts (x_lo H0_hi, x_lo K', S_lo K: 6 of the 10 tensor units a round; x's precision ~2^-9, not a usable kernel)
# against the working tree's, to see how much of a round the product count is
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
for t in "" .gpu/tpl-lowprec; do
  timeout 120 $S bench --backend cuda --dtype bf16 ${t:+--templates $t} $G --B 8 --T 4096 --H 16 --decode 1 --reps 5 --no-bwd 2>&1 | grep -E " fwd " | sed "s|^|${t:-new} |" | tee -a $OUT/bench.txt | awk '{for(i=1;i<=NF;i++) if ($i=="ms") print $1, $3, $(i-1)}'
  timeout 100 ncu -k regex:"_psolve90$" -c 1 --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed $S bench --backend cuda --dtype bf16 ${t:+--templates $t} $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu-${t##*-}.log 2>&1
  echo "ncu ${t:-new} rc=$? $(grep -E 'duration|throughput' $OUT/ncu-${t##*-}.log | awk '{print $1, $NF}' | tr '\n' ' ')"
done
