#!/bin/bash
# s59 call 2: the backward's workspace rows on 32-byte sectors (tree: a token's row a multiple of 8 floats, a chunk
# slot's of 32; al32: the token's row of 32 too) against 4b42701's templates (base: rows of 140 floats for GDN);
# GDN, DeltaNet, Mamba-2 bf16; ncu per stage at B8; checks on the GPU of every built-in family with the tree.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet" "8 4096 mamba2" "2 16384 mamba2"; do set -- $sh
  for v in tree base al32 tree base al32; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v $3 B$1 /" | tee -a $OUT/ab.txt
  done
done
for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  for f in gated_deltanet mamba2; do
    timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
      --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml $t > /tmp/g.csv 2>/tmp/g.err
    echo "== $v $f B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
  done
done
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml tests/fixtures/specs/emu_split_delta.yaml dsl/families/mamba2.yaml dsl/families/gla.yaml dsl/families/kda.yaml dsl/families/gated_kalmanet.yaml; do
  timeout 200 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick tree $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -8 >> $OUT/checks.txt
done
cat $OUT/durations.txt
# where bgrad and bstate wait (tree, GDN B8): warp states, memory tables, source counters of one launch each
for k in bgrad bstate; do
  timeout 120 ncu --clock-control none -k regex:bf16_$k\$ -c 1 --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis_Tables --section SourceCounters --section Occupancy --section LaunchStats \
    .gpu/ssmc bench --backend cuda --dtype bf16 --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > $OUT/ncu_$k.txt 2>&1
done
