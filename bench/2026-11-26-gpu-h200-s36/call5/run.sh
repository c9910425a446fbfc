#!/bin/bash
# session 36 call 5 (the session's templates, ce1de02 and after): GDN and DeltaNet B8 T4096 H16 forward + backward
# (recomputing, and with the forward kept: fused90_keep, the tf32 form) beside 88463fe's templates; GDN's check with
# the backward (quick); ncu --set full with SASS source counters of fused90 (HD) at GDN B8
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for f in gated_deltanet deltanet; do
  for v in new 88463fe; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|fwd-fused90|fwd\+bwd|fwd\+bwd-saved) |rror" | sed "s/^/$v $f /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $8}'
  done
done
timeout 150 $S check --backend cuda --dtype bf16 --quick dsl/families/gated_deltanet.yaml > $OUT/check-bwd.txt 2>&1
echo "check bwd rc=$?"; grep -E "FAIL|comparisons" $OUT/check-bwd.txt | tail -3
mkdir -p $OUT/r
timeout 120 ncu -k regex:"bf16_fused90\$" -c 1 --set full --import-source no -o $OUT/r/fused90 $S bench --backend cuda --dtype bf16 --no-bwd dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.log 2>&1
echo "ncu rc=$?"
ncu -i $OUT/r/fused90.ncu-rep --page details > $OUT/fused90-details.txt 2>&1
ncu -i $OUT/r/fused90.ncu-rep --page source --csv --print-source sass > $OUT/fused90-sass.csv 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Executed Ipc A" $OUT/fused90-details.txt | head -4
rm -rf $OUT/r; gzip $OUT/fused90-sass.csv
