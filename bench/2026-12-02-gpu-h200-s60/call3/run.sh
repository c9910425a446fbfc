#!/bin/bash
# s60 call 3: bval's last pass (dv = w dr, v . dr) a warp a token with four columns a lane and the v rows of a group of
# tokens loaded before the first sum (tree: up to 16 registers of rows a thread; tg8: 8), against f70e32b's templates
# (base: a two-byte load a lane at a time, waited on); GDN, DeltaNet, Mamba-2 bf16 two rounds, GLA once; ncu per
# stage; quick checks on the GPU of every built-in family with the tree.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "8 4096 deltanet" "8 4096 mamba2" "8 4096 gla"; do set -- $sh
  vs="tree base tg8 tree base tg8"; [ $3 = gla ] && vs="tree base"
  for v in $vs; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 90 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
for v in tree base tg8; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for f in gated_deltanet mamba2; do
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v $f B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
cat $OUT/durations.txt
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/mamba2.yaml tests/fixtures/specs/emu_split_delta.yaml dsl/families/gla.yaml dsl/families/kda.yaml dsl/families/gated_kalmanet.yaml; do
  timeout 200 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick tree $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -8 >> $OUT/checks.txt
done
