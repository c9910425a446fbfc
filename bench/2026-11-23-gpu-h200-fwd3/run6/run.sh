#!/bin/bash
# run 6: prep regression: v1 = tile-product target passed by value; v2 = float operands through the former mm_tiles
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
for bin in .gpu/ssmc-base .gpu/ssmc-v1 .gpu/ssmc-v2; do for s in mamba2 gated_deltanet; do
  timeout 60 ncu --clock-control none --kernel-name regex:'_(prep|scan|state|out)$' --launch-count 3 --metrics gpu__time_duration.sum $bin bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --no-bwd --decode 1 --reps 1 > $OUT/ncu-$(basename $bin)-$s.txt 2>&1
  grep -E "_(prep|scan|state|out) |gpu__time" $OUT/ncu-$(basename $bin)-$s.txt | paste - - | awk -v b=$(basename $bin) '{print b, $1, $(NF-1), $(NF)}' | head -3
done; done
for s in mamba2 gated_deltanet; do for bin in .gpu/ssmc-base .gpu/ssmc-v1 .gpu/ssmc-v2; do
  timeout 60 $bin bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 20 2>&1 | grep -E "fwd|bwd" | sed "s|^|$(basename $bin) |" | tee -a $OUT/bench.txt
done; done
timeout 60 .gpu/ssmc-v2 check --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-v2-gdn.txt 2>&1; tail -1 $OUT/check-v2-gdn.txt
