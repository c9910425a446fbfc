#!/bin/bash
# run 3: merged main (out/prep rewrite + backward scans) vs base 8595eb0: checks, fwd+bwd benches, per-stage ncu
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; B=.gpu/ssmc-base
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/env.txt; date -u >> $OUT/env.txt
for s in mamba2 gated_deltanet; do
  timeout 100 $S check --backend cuda dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1; echo "$s rc=$?: $(grep -c FAIL $OUT/check-$s.txt) fail; $(tail -1 $OUT/check-$s.txt)"; grep FAIL $OUT/check-$s.txt | head -4
done
for s in dsl/families/gla.yaml dsl/families/kda.yaml dsl/families/deltanet.yaml dsl/families/gated_kalmanet.yaml examples/my_ssm.yaml; do b=$(basename $s .yaml)
  timeout 60 $S check --backend cuda --quick $s > $OUT/check-$b.txt 2>&1; echo "$b rc=$?: $(grep -c FAIL $OUT/check-$b.txt) fail; $(tail -1 $OUT/check-$b.txt)"; grep FAIL $OUT/check-$b.txt | head -4
done
for s in mamba2 gated_deltanet; do for bin in $B $S; do
  timeout 60 $bin bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 20 2>&1 | grep -E "fwd|bwd" | sed "s|^|$(basename $bin) |" | tee -a $OUT/bench.txt
  timeout 40 $bin bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 1 --T 32768 --H 16 --no-bwd --decode 1 --reps 20 2>&1 | grep -E "fwd " | sed "s|^|$(basename $bin) |" | tee -a $OUT/bench.txt
done; done
for s in gla kda; do for bin in $B $S; do
  timeout 40 $bin bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --no-bwd --decode 1 --reps 10 2>&1 | grep -E "fwd " | sed "s|^|$(basename $bin) |" | tee -a $OUT/bench.txt
done; done
for s in gla kda; do
  timeout 50 ncu --clock-control none --kernel-name regex:'_(prep|scan|state|out)$' --launch-count 3 --metrics gpu__time_duration.sum $B bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --no-bwd --decode 1 --reps 1 > $OUT/ncu-base-$s.txt 2>&1
  grep -E "_(prep|scan|state|out) |gpu__time" $OUT/ncu-base-$s.txt | paste - - | awk '{print "base", $1, $(NF-1), $(NF)}' | head -3
done
