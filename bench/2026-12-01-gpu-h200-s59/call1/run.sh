#!/bin/bash
# s59 call 1: bgrad on a key tile of 32 (BK 32) in two blocks an SM of 256 threads (bk32n: BGE off, 124 registers,
# 98.5 KiB) and with BGE (bk32: 199 registers, one block an SM) against the tree (4b42701: BK 64, 512 threads, one
# block an SM, 144000 B); GDN, DeltaNet, Mamba-2 bf16; ncu per stage at B8; checks on the GPU.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet" "8 4096 mamba2"; do set -- $sh
  for v in tree bk32n bk32 tree bk32n bk32; do
    [ $3 = mamba2 ] && [ $v = bk32 ] && continue
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
for v in tree bk32n; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for f in gated_deltanet mamba2; do
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v $f B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml tests/fixtures/specs/emu_split_delta.yaml dsl/families/mamba2.yaml; do
  timeout 150 .gpu/ssmc check --backend cuda --quick --templates .gpu/tpl-bk32n $f > /tmp/q.txt 2>&1
  echo "quick bk32n $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -8 >> $OUT/checks.txt
done
cat $OUT/durations.txt
