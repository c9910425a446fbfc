#!/bin/bash
# session 28 call 3: the update's keys made by the consumers under q Z (the producer keeps the copies, the coefficients and
# the masked scores; the KF barrier gone), the mask without branches (working tree) against e7d853a (call 2's form):
# checks, sanitizers, Mamba-2 forward A/B two rounds, the pick rule's batches, fla in the same call, ncu of the tree
D=bench/2026-11-25-gpu-h200-producer
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-e7d853a
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in dsl/families/mamba2.yaml tests/fixtures/specs/emu_f90.yaml tests/fixtures/specs/emu_f90_v64.yaml tests/fixtures/specs/cuda_fused_k64.yaml; do
  n=$(basename $s .yaml)
  timeout 100 $S check --backend cuda --no-bwd --dtype bf16 $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "edges.*fwd-fused90 y" $OUT/check-$n.txt
done
for s in emu_f90 emu_f90_v64; do
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --print-limit 10 $S check --backend cuda --quick --no-bwd --dtype bf16 tests/fixtures/specs/$s.yaml > $OUT/san-$tool-$s.txt 2>&1
    echo "$tool $s rc=$? $(grep '^check:' $OUT/san-$tool-$s.txt) $(tail -1 $OUT/san-$tool-$s.txt)"
  done
done
run() { # round spec shape variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? " | sed "s/^/round$1 $(basename $v) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $7, $9}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 8 --T 4096 --H 16" "tree $base"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 8 --T 4096 --H 32" "tree $base"
done
for b in 2 3 4; do run 1 dsl/families/mamba2.yaml "--B $b --T 4096 --H 16" "tree"; done
for b in 1 2 4; do run 1 tests/fixtures/specs/cuda_fused_k64.yaml "--B $b --T 4096 --H 32" "tree"; done
PYTHONPATH=.fla timeout 200 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 8,4096,16,128 8,4096,32,64 2>&1 | tee $OUT/fla.txt | tail -2
k=fused90
timeout 120 ncu -k regex:"_${k}\$" -c 1 --set full --import-source no -o $OUT/$k $S bench --backend cuda --dtype bf16 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu-$k.log 2>&1
echo "ncu rc=$?"
ncu -i $OUT/$k.ncu-rep --page details --csv > $OUT/details-$k.csv 2>&1
ncu -i $OUT/$k.ncu-rep --page source --csv --print-source sass > $OUT/sass-$k.csv 2>&1
grep -E '"(Duration|Registers Per Thread|Executed Ipc Active|Issue Slots Busy)"' $OUT/details-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/sass-$k.csv 100 > $OUT/sass-segments-$k.txt; head -40 $OUT/sass-segments-$k.txt | cut -c1-150
rm -f $OUT/$k.ncu-rep; gzip $OUT/sass-$k.csv
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt ncu-*.log && rm -f check-*.txt san-*.txt ncu-*.log
