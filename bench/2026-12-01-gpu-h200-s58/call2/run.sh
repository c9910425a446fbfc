#!/bin/bash
# s58 call 2: at B1 / B2 (the narrow pick) against the tree (89fcbb8, BS2): tpl-n2 (bstate_n without the ring, du in one
# buffer, two blocks an SM) and tpl-pct40 (the narrow pick below 40% of the SMs, not 75: B2 H16 on BS2's wide form).
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "2 16384 gated_deltanet" "1 32768 gated_deltanet" "2 16384 deltanet"; do set -- $sh
  for v in tree n2 pct40 tree n2 pct40; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
for v in tree n2 pct40; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for sh in "2 16384" "1 32768"; do set -- $sh
    timeout 90 ncu --clock-control none -k regex:bstate --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows bwd-saved --reps 1 --B $1 --T $2 --H 16 dsl/families/gated_deltanet.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v GDN B$1 bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
for f in tests/fixtures/specs/emu_split_delta.yaml dsl/families/gated_deltanet.yaml; do
  timeout 150 .gpu/ssmc check --backend cuda --quick $f --templates .gpu/tpl-n2 > /tmp/q.txt 2>&1
  echo "n2 quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
cat $OUT/durations.txt
