#!/bin/bash
# session 9 call 3: tf32 probe; base (6f47691 templates) vs new forward; new fwd+bwd; checks of the new code
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; O=$OUT/r; mkdir -p $O
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/env.txt; date -u >> $O/env.txt; cat .gpu/commit >> $O/env.txt
nvcc -arch=sm_90a -std=c++20 -o /tmp/probe .gpu/tf32probe.cu && /tmp/probe | tee $O/tf32probe.txt
small=$(mktemp -d); for s in dsl/families/*.yaml; do sed 's/dims: {K: 128, V: 128}/dims: {K: 64, V: 64}/' "$s" > "$small/$(basename "$s")"; done
B="bench --backend cuda --dtype bf16"
for s in mamba2 gated_deltanet; do for v in base new; do t=""; [ $v = base ] && t="--templates .gpu/tpl_base"
  echo "# $v" >> $O/bench.txt; timeout 60 $S $B $t dsl/families/$s.yaml --B 8 --T 4096 --H 16 --no-bwd --decode 1 --reps 20 2>&1 | tee -a $O/bench.txt | grep -E "fwd|error" | sed "s/^/$v /"
done; done
echo "# new fwd+bwd, decode" >> $O/bench.txt
for s in mamba2 gated_deltanet; do timeout 80 $S $B dsl/families/$s.yaml --B 8 --T 4096 --H 16 --decode 1,512 --reps 20 2>&1 | tee -a $O/bench.txt | grep -E "fwd|bwd|decode|error"; done
for s in gla kda deltanet; do timeout 60 $S $B dsl/families/$s.yaml --B 8 --T 4096 --H 16 --no-bwd --decode 1 --reps 20 2>&1 | tee -a $O/bench.txt | grep -E "fwd|error"; done
for s in mamba2 gated_deltanet; do
  timeout 60 $S $B $small/$s.yaml --B 8 --T 4096 --H 32 --no-bwd --decode 1 --reps 20 2>&1 | tee -a $O/bench.txt | grep -E "fwd|error"
  timeout 60 $S $B dsl/families/$s.yaml --B 1 --T 32768 --H 16 --no-bwd --decode 1 --reps 10 2>&1 | tee -a $O/bench.txt | grep -E "fwd|error"
done
echo "bench done at $(el)s"
for s in mamba2 gated_deltanet gla deltanet my_ssm kda gated_kalmanet; do
  f=dsl/families/$s.yaml; [ -f $f ] || f=examples/$s.yaml; q=""; case $s in kda|gated_kalmanet) q=--quick;; esac
  t=$((530 - $(el))); [ $t -lt 25 ] && { echo "skip check $s"; continue; }; [ $t -gt 110 ] && t=110
  stdbuf -oL timeout $t $S check --backend cuda $q $f > $O/check-$s.txt 2>&1; echo "$s rc $?: $(grep -c FAIL $O/check-$s.txt) fail; $(tail -1 $O/check-$s.txt)"; grep FAIL $O/check-$s.txt | head -4
done
cd $OUT && tar czf r.tgz r
