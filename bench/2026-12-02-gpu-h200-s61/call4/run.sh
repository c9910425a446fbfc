#!/bin/bash
# s61 call 4: bval (no erase) fetches dZ_L's first value tile with du, before the keys' synchronous loads (tree) against
# 9e08a2c's templates (base). Mamba-2 B8 two rounds, GLA B8 once; ncu per stage of Mamba-2; quick checks on the GPU.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 mamba2 16" "8 4096 gla 16"; do set -- $sh
  vs="tree base tree base"; [ $3 != mamba2 ] && vs="tree base"
  for v in $vs; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 120 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H $4 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for f in mamba2; do
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v $f B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
cat $OUT/durations.txt
for f in dsl/families/mamba2.yaml examples/my_ssm.yaml; do
  timeout 200 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick tree $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -8 >> $OUT/checks.txt
done
