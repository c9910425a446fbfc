#!/bin/bash
# session 44 call 1 (a427ccd = e2fd749's code): (a) GLA bf16 B8 T4096 H16 forward+backward, the tree's templates against
# e2fd749^'s (3572dce: before bgrad's P2 split in one-product modules), two rounds; (b) GDN bgrad per-line profile
# (session 43's next/run.sh), its outputs copied to $OUT as soon as they exist
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for r in 1 2; do for v in tree tpl-3572dce; do
  t=(); [ $v = tree ] || t=(--templates .gpu/$v)
  timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gla.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
    grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s|^|round$r $v |" | tee -a $OUT/gla-ab.txt | awk '{print $1, $2, $4, $6}'
done; done
export SSMC_NVRTC_LINEINFO=1
D=bench/2026-11-29-gpu-h200-s43
GS=generated/gated_deltanet/ssmc_gated_deltanet_beee6720_k128v128_c64_bk64bv64_bf16.cu
mkdir -p /tmp/p
timeout 150 ncu -k "regex:_bgrad$" --launch-count 1 --set full --import-source no -f -o /tmp/p/gbgrad $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/p/gbgrad.log 2>&1
echo "ncu rc=$?"
ncu -i /tmp/p/gbgrad.ncu-rep --page details > $OUT/gbgrad-details.txt 2>&1
ncu -i /tmp/p/gbgrad.ncu-rep --page source --csv --print-source cuda,sass > /tmp/p/gbgrad-cudasass.csv 2>&1
python3 bench/2026-11-24-gpu-h200-masks/lines.py /tmp/p/gbgrad-cudasass.csv $GS 80 > $OUT/gbgrad-lines.txt 2>&1
xz -c /tmp/p/gbgrad-cudasass.csv > $OUT/gbgrad-cudasass.csv.xz
head -40 $OUT/gbgrad-lines.txt
