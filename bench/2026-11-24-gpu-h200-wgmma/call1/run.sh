#!/bin/bash
# call 1: oracle checks of the wgmma out stage (sm_90a), then A/B timing against 47b2e53's templates
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt
for f in mamba2 gated_deltanet deltanet; do
  timeout 150 $S check --backend cuda --quick --no-bwd dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f: $(tail -1 $OUT/check-$f.txt)"
done
B="--backend cuda --dtype bf16 --no-bwd --decode 1 --reps 20"
for r in 1 2; do
  for f in mamba2 gated_deltanet; do
    for v in new base; do
      t=""; [ $v = base ] && t="--templates .gpu/tpl-47b2e53"
      $S bench $B $t dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/b8-$v-$f-r$r.txt 2>&1
      echo "B8 $f $v r$r: $(grep -E '^\S+ +fwd' $OUT/b8-$v-$f-r$r.txt | head -3 | tr -s ' ' | tr '\n' '|')"
    done
  done
done
for f in mamba2 gated_deltanet; do
  for v in new base; do
    t=""; [ $v = base ] && t="--templates .gpu/tpl-47b2e53"
    $S bench $B $t dsl/families/$f.yaml --B 1 --T 32768 --H 16 > $OUT/b1-$v-$f.txt 2>&1
    echo "B1 $f $v: $(grep -E ' fwd' $OUT/b1-$v-$f.txt | head -3 | tr -s ' ' | tr '\n' '|')"
  done
done
# the out stage alone (ncu), new vs base, B8 T4096 H16
for f in mamba2 gated_deltanet; do
  for v in new base; do
    t=""; [ $v = base ] && t="--templates .gpu/tpl-47b2e53"
    timeout 100 ncu --clock-control none --kernel-name regex:'bf16_out$' --launch-count 2 --metrics gpu__time_duration.sum,sm__inst_executed.sum,launch__registers_per_thread \
      $S bench --backend cuda --dtype bf16 --no-bwd --decode 1 --reps 1 $t dsl/families/$f.yaml --B 8 --T 4096 --H 16 > $OUT/ncu-out-$v-$f.txt 2>&1
    echo "ncu $f $v: $(grep -E 'gpu__time_duration' $OUT/ncu-out-$v-$f.txt | tr -s ' ' | tr '\n' '|')"
  done
done
timeout 150 compute-sanitizer --tool memcheck $S check --backend cuda --quick --no-bwd dsl/families/mamba2.yaml > $OUT/memcheck-mamba2.txt 2>&1
echo "memcheck: $(grep -E 'ERROR SUMMARY|passed' $OUT/memcheck-mamba2.txt | tr '\n' '|')"
