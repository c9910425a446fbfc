#!/bin/bash
# session 43 call 1 (b0c3867, SSMC_NVRTC_LINEINFO=1): where the backward's time goes. ncu full sets with source
# counters of GDN's bgrad, bstate, bprep, bval and Mamba-2's bgrad, bprep, bval (B8 T4096 H16 bf16, the first launch
# of each), samples per line of the generated source (lines.py); then the B8 benches of GDN, Mamba-2 and GKA
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s43
G=dsl/families/gated_deltanet.yaml; M=dsl/families/mamba2.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
mkdir -p /tmp/p
prof() {
  name=$1; kre=$2; src=$3; shift 3
  timeout 150 ncu -k "regex:$kre" --launch-count 1 --set full --import-source no -f -o /tmp/p/$name "$@" >/tmp/p/$name.log 2>&1
  echo "$name rc=$?"
  ncu -i /tmp/p/$name.ncu-rep --page details > /tmp/p/$name-details.txt 2>&1
  ncu -i /tmp/p/$name.ncu-rep --page source --csv --print-source cuda,sass > /tmp/p/$name-cudasass.csv 2>&1
  python3 bench/2026-11-24-gpu-h200-masks/lines.py /tmp/p/$name-cudasass.csv $src 60 > /tmp/p/$name-lines.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|DRAM Throughput|Memory Throughput" /tmp/p/$name-details.txt | head -8
}
GS=generated/gated_deltanet/ssmc_gated_deltanet_beee6720_k128v128_c64_bk64bv64_bf16.cu
MS=generated/mamba2/ssmc_mamba2_373a415a_k128v128_c64_bk64bv64_bf16.cu
ls $GS $MS
B="bench --backend cuda --dtype bf16 --reps 1 --decode 1 --B 8 --T 4096 --H 16"
prof gbgrad '_bgrad$' $GS $S $B $G
prof gbstate '_bstate$' $GS $S $B $G
prof gbprep '_bprep$' $GS $S $B $G
prof gbval '_bval$' $GS $S $B $G
prof mbgrad '_bgrad$' $MS $S $B $M
prof mbprep '_bprep$' $MS $S $B $M
prof mbval '_bval$' $MS $S $B $M
unset SSMC_NVRTC_LINEINFO
export SSMC_CACHE_DIR=$(mktemp -d)
for f in gated_deltanet mamba2 gated_kalmanet; do
  timeout 120 $S bench --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
    grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)* |rror" | sed "s|^|$f |" | tee -a $OUT/bench.txt | awk '{print $1, $3, $7}'
done
cd /tmp/p && tar czf $OUT/prof.tgz *-details.txt *-lines.txt *.log && ls -la $OUT
