#!/bin/bash
# session 26 call 1 (e41158a: the narrow state passes on wgmma, state90n_body): checks GDN and KDA (bf16, the
# per-key decays), racecheck of the fixture emu_sn90_delta; GDN B1 T32768 H16 the tree against 18d97b6's templates
# (session 25's last), two rounds; fla's chunk_gated_delta_rule in the same call; ncu of the new state_n
D=bench/2026-11-25-gpu-h200-sn90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-18d97b6
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
for f in gated_deltanet kda; do
  timeout 150 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$?"; grep "^check:" $OUT/check-$f.txt; grep FAIL $OUT/check-$f.txt | head -3; grep "bf16 edges.*fwd-narrow y" $OUT/check-$f.txt
done
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree $base"
PYTHONPATH=.fla timeout 150 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 1,32768,16,128 2>&1 | tee $OUT/fla.txt | tail -2
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "$base tree"
timeout 150 compute-sanitizer --tool racecheck --print-limit 5 $S check --backend cuda --quick tests/fixtures/specs/emu_sn90_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -2 $OUT/racecheck.txt
k=state_n
timeout 150 ncu -k regex:"_${k}\$" -c 1 --set full --import-source no -o $OUT/$k $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu-$k.log 2>&1
echo "ncu rc=$?"
ncu -i $OUT/$k.ncu-rep --page details --csv > $OUT/details-$k.csv 2>&1
ncu -i $OUT/$k.ncu-rep --page source --csv --print-source sass > $OUT/sass-$k.csv 2>&1
grep -E '"(Duration|Registers Per Thread|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Executed Ipc Active|Issue Slots Busy)"' $OUT/details-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
grep -iE 'stall' $OUT/details-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | head -8
python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/sass-$k.csv 100 > $OUT/sass-segments-$k.txt; head -30 $OUT/sass-segments-$k.txt | cut -c1-160
rm -f $OUT/$k.ncu-rep; gzip $OUT/sass-$k.csv
