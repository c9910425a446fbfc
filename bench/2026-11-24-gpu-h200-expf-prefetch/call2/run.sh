#!/bin/bash
# session 18 call 2 (main 5c7c508): ncu full sets with SASS stall sampling: GDN state_n (B1 T32768 fwd), GDN
# bstate and fstate (B8 T4096 bwd, wide), Mamba-2 bgrad (B8); everything into one tarball
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml; M=dsl/families/mamba2.yaml
mkdir -p /tmp/p
$S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $G --B 1 --T 512 --H 2 >/dev/null 2>&1
$S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $M --B 1 --T 512 --H 2 >/dev/null 2>&1
prof() {
  name=$1; kre=$2; shift 2
  timeout 150 ncu -k "regex:$kre" --launch-count 1 --set full --import-source no -f -o /tmp/p/$name "$@" >/tmp/p/$name.log 2>&1
  echo "$name rc=$?"
  ncu -i /tmp/p/$name.ncu-rep --page details > /tmp/p/$name-details.txt 2>&1
  ncu -i /tmp/p/$name.ncu-rep --page source --csv --print-source sass > /tmp/p/$name-sass.csv 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued" /tmp/p/$name-details.txt | head -6
}
prof staten 'state_n$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 --no-bwd $G --B 1 --T 32768 --H 16
prof bstate 'bstate$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $G --B 8 --T 4096 --H 16
prof fstate 'fstate$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $G --B 8 --T 4096 --H 16
prof m2bgrad 'bgrad$' $S bench --backend cuda --dtype bf16 --reps 1 --decode 1 $M --B 8 --T 4096 --H 16
cd /tmp/p && tar czf $OUT/prof2.tgz *-details.txt *-sass.csv *.log && ls -la $OUT
