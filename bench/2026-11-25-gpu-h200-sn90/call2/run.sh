#!/bin/bash
# session 26 call 2 (5b0cdc6-: state90n_body with interleaved accumulator chains and stepped pointers): GDN check;
# B1 T32768 H16 forward only, the tree against chain1 (the tree with one chain a product), e41158a (call 1's
# form) and 18d97b6 (mma.sync, session 25's last), two rounds; racecheck of emu_sn90_delta by kernel; ncu of state_n
D=bench/2026-11-25-gpu-h200-sn90
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants [extra]
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 $5 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep -E "narrow|saved"
  done
}
timeout 150 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn.txt 2>&1
echo "check rc=$?"; grep "^check:" $OUT/check-gdn.txt; grep FAIL $OUT/check-gdn.txt | head -3; grep "bf16 edges.*fwd-narrow y" $OUT/check-gdn.txt
V="tree .gpu/tpl-chain1 .gpu/tpl-e41158a .gpu/tpl-18d97b6"
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "$V" --no-bwd
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')" --no-bwd
run 3 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree"
timeout 150 compute-sanitizer --tool racecheck --print-limit 1000 $S check --backend cuda --quick tests/fixtures/specs/emu_sn90_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -1 $OUT/racecheck.txt; grep "Race reported" $OUT/racecheck.txt | sed 's/.*access at //; s/+0x.*//' | sort | uniq -c
k=state_n
timeout 150 ncu -k regex:"_${k}\$" -c 1 --set full --import-source no -o $OUT/$k $S bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 --decode 1 --reps 1 --no-bwd > $OUT/ncu-$k.log 2>&1
echo "ncu rc=$?"
mkdir -p $OUT/ncu
ncu -i $OUT/$k.ncu-rep --page details --csv > $OUT/ncu/details-$k.csv 2>&1
ncu -i $OUT/$k.ncu-rep --page source --csv --print-source sass > $OUT/ncu/sass-$k.csv 2>&1
grep -E '"(Duration|Registers Per Thread|Executed Ipc Active|L2 Cache Throughput)"' $OUT/ncu/details-$k.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
python3 bench/2026-11-24-gpu-h200-bgw/call2/sass_segments.py $OUT/ncu/sass-$k.csv 50 > $OUT/ncu/sass-segments-$k.txt; cut -c1-200 $OUT/ncu/sass-segments-$k.txt | awk 'NR == 1 || $2 + 0 >= 1.0'
rm -f $OUT/$k.ncu-rep; (cd $OUT && tar -czf ncu.tar.gz ncu && rm -rf ncu)
