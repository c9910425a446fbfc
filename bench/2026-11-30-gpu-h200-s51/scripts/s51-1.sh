#!/bin/bash
# call 1 (d4384bd): GDN's stage durations (fwd+bwd-saved) and bgrad's phases (ncu source counters, line info)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
python3 bench/ncu_durations.py /tmp/g.csv | tee $OUT/durations.txt
export SSMC_NVRTC_LINEINFO=1
GS=generated/gated_deltanet/ssmc_gated_deltanet_beee6720_k128v128_c64_bk64bv64_bf16.cu
timeout 200 ncu -k "regex:_bgrad$" --launch-count 1 --set full --import-source no -f -o /tmp/gb $S bench --backend cuda \
  --dtype bf16 --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/gb.log 2>&1
echo "ncu rc=$?" | tee -a $OUT/durations.txt
ncu -i /tmp/gb.ncu-rep --page details > $OUT/gbgrad-details.txt 2>&1
ncu -i /tmp/gb.ncu-rep --page source --csv --print-source cuda,sass > /tmp/gb.csv 2>&1
python3 .gpu/phase.py /tmp/gb.csv 3281 3609 3281-3320,3321-3395,3396-3415,3416-3436,3437-3457,3458-3518,3519-3549,3550-3555,3556-3563,3564-3609 | tee $OUT/bgrad-phases.txt
xz -c /tmp/gb.csv > $OUT/gbgrad-cudasass.csv.xz
