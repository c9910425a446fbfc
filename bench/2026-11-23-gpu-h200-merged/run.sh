#!/bin/bash
# final: merged main (scan + A once + decode + GKA backward): check all, memcheck of the new forward, bench
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/env.txt; date -u >> $OUT/env.txt
for s in dsl/families/*.yaml examples/*.yaml; do b=$(basename $s .yaml)
  stdbuf -oL timeout 150 $S check --backend cuda $s > $OUT/check-$b.txt 2>&1; echo "$b: $(grep -c FAIL $OUT/check-$b.txt) fail; $(tail -1 $OUT/check-$b.txt)"; grep FAIL $OUT/check-$b.txt | head -3
done
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $S check --backend cuda --quick dsl/families/mamba2.yaml > $OUT/memcheck-mamba2.txt 2>&1; echo "memcheck mamba2 rc $?: $(tail -1 $OUT/memcheck-mamba2.txt)"
for s in mamba2 gated_deltanet; do
  timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1,512 --reps 20 2>&1 | grep -E "fwd|bwd|decode" | tee -a $OUT/bench.txt
done
