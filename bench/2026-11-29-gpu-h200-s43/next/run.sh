#!/bin/bash
# NOT RUN (session 43 ran out of device time): for the next session. GDN bgrad under ncu with line info (SSMC_NVRTC_LINEINFO=1): call 1's GDN bgrad
# profile again, its per-line samples tarred as soon as they exist (call 1 lost them at its time limit)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s43
GS=generated/gated_deltanet/ssmc_gated_deltanet_beee6720_k128v128_c64_bk64bv64_bf16.cu
mkdir -p /tmp/p
timeout 130 ncu -k "regex:_bgrad$" --launch-count 1 --set full --import-source no -f -o /tmp/p/gbgrad $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/p/gbgrad.log 2>&1
echo "ncu rc=$?"
ncu -i /tmp/p/gbgrad.ncu-rep --page details > /tmp/p/gbgrad-details.txt 2>&1
ncu -i /tmp/p/gbgrad.ncu-rep --page source --csv --print-source cuda,sass > /tmp/p/gbgrad-cudasass.csv 2>&1
python3 bench/2026-11-24-gpu-h200-masks/lines.py /tmp/p/gbgrad-cudasass.csv $GS 80 > $OUT/gbgrad-lines.txt 2>&1
cp /tmp/p/gbgrad-details.txt $OUT/
head -25 $OUT/gbgrad-lines.txt
