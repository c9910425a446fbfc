#!/bin/bash
# session 31 call 4: f866cd8 (the review commit: gcheb's and gsolve's setup through one helper): GKA checks with the
# backward; where sgrad's and gsolve's time goes (ncu: warp states, instruction mix, source lines) at B2 T4096 H16,
# for the next step; bench B8 once more
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_kalmanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -3
timeout 150 $S bench --backend cuda --dtype bf16 $G --B 8 --T 4096 --H 16 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)? " | tee -a $OUT/bench.txt | awk '{print $2, $3, $4, $5, $6, $7, $8}'
timeout 150 ncu -k regex:"_(sgrad|gsolve)$" -c 2 --section WarpStateStats --section SchedulerStats --section SourceCounters $S bench --backend cuda --dtype bf16 $G --B 2 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; grep -E "ssmc_.*CC 9|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps" $OUT/ncu.log | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16_//' | head -40
cd $OUT && tar -czf logs.tgz check-*.txt && rm -f check-*.txt
