#!/bin/bash
# call 3: the wgmma out stage after conflict-free operand stores (SSMC_WGMMA=1) vs mma.sync (the same binary
# without it) vs 47b2e53's templates; checks with wgmma on
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for f in mamba2 gated_deltanet; do
  SSMC_WGMMA=1 timeout 150 $S check --backend cuda --quick --no-bwd dsl/families/$f.yaml > $OUT/check-wg-$f.txt 2>&1
  echo "$f wgmma: $(tail -1 $OUT/check-wg-$f.txt)"
done
for f in mamba2 gated_deltanet; do
  for v in wg mma base; do
    t=""; e=""; [ $v = base ] && t="--templates .gpu/tpl-47b2e53"; [ $v = wg ] && e="SSMC_WGMMA=1"
    env $e timeout 100 ncu --clock-control none --kernel-name regex:'bf16_out$' --launch-count 2 --metrics gpu__time_duration.sum,sm__inst_executed.sum \
      $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 1 $t dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-out-$v-$f.txt 2>&1
    echo "ncu $f $v: $(grep -E 'gpu__time_duration|inst_executed' $OUT/ncu-out-$v-$f.txt | tr -s ' ' | tr '\n' '|')"
  done
done
for f in mamba2 gated_deltanet; do
  for v in wg mma; do
    e=""; [ $v = wg ] && e="SSMC_WGMMA=1"
    env $e $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20 dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$v-$f.txt 2>&1
    echo "B8 $f $v: $(grep -E ' fwd' $OUT/b8-$v-$f.txt | tr -s ' ' | tr '\n' '|')"
  done
done
