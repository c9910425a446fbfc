#!/bin/bash
# session 22 call 2: ncu of GDN's bgrad (B8 T4096 H16 bf16), the tree (98dc84f, BGW) and 6aade2b: SASS-level stall
# samples, to see where bgrad's time goes (value loop vs the rest); sass-segments-*.txt: sass_segments.py's sums
# over windows of 200 SASS instructions (the csv exports, 2 MB each, are not kept)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
for v in tree $base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  n=$(basename $v)
  timeout 200 ncu -k regex:bgrad -c 1 --set full --import-source no -o $OUT/bg-$n $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu-$n.log 2>&1
  echo "ncu $n rc=$?"; tail -2 $OUT/ncu-$n.log
  ncu -i $OUT/bg-$n.ncu-rep --page details --csv > $OUT/details-$n.csv 2>&1
  ncu -i $OUT/bg-$n.ncu-rep --page source --csv --print-source sass > $OUT/sass-$n.csv 2>&1
  echo "export rc=$?"; wc -c $OUT/details-$n.csv $OUT/sass-$n.csv
  grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Executed Ipc Active)"' $OUT/details-$n.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
rm -f $OUT/*.ncu-rep
