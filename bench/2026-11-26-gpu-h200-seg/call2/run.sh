#!/bin/bash
# session 34 call 2: where the segment passes spend their time (ncu --set full with SASS source counters: 9eda7c2's
# fused90_seg and 4228b6f's, B1 T32768 H16); bench rows against 4228b6f (its own binary, .gpu/ssmc-base) and two
# diagnostic variants of 9eda7c2's pass (not kernels to keep): nolo (without the keys' lo product) and nokeys (the
# keys not made: the chain without hb_keys)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
B=.gpu/ssmc-base
mkdir -p $OUT/r
for v in new base; do
  if [ $v = new ]; then x=($S); else x=($B); fi
  timeout 150 ncu -k regex:"fused90_seg" -c 1 --set full --import-source no -o $OUT/r/$v "${x[@]}" bench --backend cuda --dtype bf16 --no-bwd dsl/families/mamba2.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 > $OUT/r/ncu-$v.log 2>&1
  echo "ncu $v rc=$?"
  ncu -i $OUT/r/$v.ncu-rep --page details > $OUT/r/$v-details.txt 2>&1
  ncu -i $OUT/r/$v.ncu-rep --page source --csv --print-source sass > $OUT/r/$v-sass.csv 2>&1
  grep -E "^  ssmc_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy" $OUT/r/$v-details.txt | head -12
done
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; base) x=($B bench --templates .gpu/tpl-4228b6f);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 150 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-split " | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 1 --T 32768 --H 16" "new base nolo nokeys"
done
run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B 1 --T 32768 --H 32" "new base"
run 1 dsl/families/mamba2.yaml "--B 2 --T 16384 --H 16" "new base"
cd $OUT && tar -czf ncu.tgz r && rm -rf r
