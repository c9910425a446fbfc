#!/bin/bash
# session 19 call 4 (main, SSMC_NVRTC_LINEINFO=1): ncu full sets with SASS sampling of Mamba-2 bgrad and bprep,
# GDN bgrad (B8 T4096 H16 bf16); the cubins disassembled with line info (nvdisasm -g) to attribute samples to lines
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml; M=dsl/families/mamba2.yaml
mkdir -p /tmp/p
prof() {
  name=$1; kre=$2; shift 2
  timeout 150 ncu -k "regex:$kre" --launch-count 1 --set full --import-source no -f -o /tmp/p/$name "$@" >/tmp/p/$name.log 2>&1
  echo "$name rc=$?"
  ncu -i /tmp/p/$name.ncu-rep --page details > /tmp/p/$name-details.txt 2>&1
  ncu -i /tmp/p/$name.ncu-rep --page source --csv --print-source sass > /tmp/p/$name-sass.csv 2>&1
  ncu -i /tmp/p/$name.ncu-rep --page source --csv --print-source cuda,sass > /tmp/p/$name-cudasass.csv 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued" /tmp/p/$name-details.txt | head -6
}
prof m2bgrad 'bgrad$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $M --B 8 --T 4096 --H 16
prof m2bprep 'bprep$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $M --B 8 --T 4096 --H 16
prof gbgrad 'bgrad$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $G --B 8 --T 4096 --H 16
for c in $SSMC_CACHE_DIR/*.cubin; do nvdisasm -g -c $c > /tmp/p/dis-$(basename $c .cubin).txt 2>&1 || echo "nvdisasm rc=$? $c"; done
cd /tmp/p && ls -la && tar czf $OUT/prof4.tgz *-details.txt *.csv *.log dis-*.txt && ls -la $OUT
