#!/bin/bash
# session 18 call 1 (main 5c7c508): ncu full sets with SASS-level stall sampling of the stages that dominate
# the missed targets: GDN state_n (B1 T32768 fwd), GDN fused90 (B8 fwd), Mamba-2 bgrad (B8 bwd), GDN bgrad (B8)
# (only the first eight files under $OUT came back: fused90 and GDN bgrad; call 2 repeats the rest)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml; M=dsl/families/mamba2.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
ncu --version | tail -1
$S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $G --B 1 --T 512 --H 2 >/dev/null 2>&1
$S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $M --B 1 --T 512 --H 2 >/dev/null 2>&1
prof() {
  name=$1; kre=$2; shift 2
  timeout 170 ncu -k "regex:$kre" --launch-count 1 --set full --import-source no -f -o $OUT/$name "$@" >$OUT/$name.log 2>&1
  echo "$name rc=$?"
  ncu -i $OUT/$name.ncu-rep --page details > $OUT/$name-details.txt 2>&1
  ncu -i $OUT/$name.ncu-rep --page source --csv --print-source sass > $OUT/$name-sass.csv 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Block Limit|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|Executed Ipc A" $OUT/$name-details.txt | head -14
}
prof staten 'state_n$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 --no-bwd $G --B 1 --T 32768 --H 16
prof fused90 'fused90' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 --no-bwd $G --B 8 --T 4096 --H 16
prof m2bgrad 'bgrad$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $M --B 8 --T 4096 --H 16
prof gbgrad 'bgrad$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $G --B 8 --T 4096 --H 16
