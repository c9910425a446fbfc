#!/bin/bash
# session 33 call 7 (7eb2c7c, the session's last code): GKA at B4 and B2 T4096 H16 and B8 again (fwd, bwd, kept),
# ncu of the three solve stages at B8
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
for b in 8 4 2; do
  timeout 150 $S bench --backend cuda --dtype bf16 $G --B $b --T 4096 --H 16 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-saved)? " | tee -a $OUT/bench.txt | awk '{for(i=1;i<=NF;i++) if ($i=="ms") print $2, $3, $(i-1)}'
done
M=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 120 ncu -k regex:"_(psolve90|xsolve90|gcheb90)$" -c 12 --metrics $M $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_.*CC 9|duration|throughput" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//' | awk '{print $1, $NF}' | tr '\n' ' '; echo
