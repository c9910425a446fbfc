#!/bin/bash
# s54 call 1: (a) bgrad with its key tile fastest (s53's prepared bgrad-kt-fastest.diff, tpl-kt) against b8ec375's
# templates (the tree), GDN, DeltaNet, Mamba-2; (b) diagnostic: without dZ0's chunk-local part (q~ e^b)' dY in
# bprep (its product and store) and bstate's reads of it (tpl-noz, noz.diff; results wrong, times only), to size
# forming that part inside bstate. H200, B8 T4096 H16 bf16.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-kt; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for f in gated_deltanet deltanet mamba2; do
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for f in gated_deltanet mamba2; do for v in tree .gpu/tpl-kt .gpu/tpl-noz; do t=(); [ $v = tree ] || t=(--templates $v)
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$f.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $f $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done; done
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/mamba2.yaml tests/fixtures/specs/emu_bgw_delta.yaml; do
timeout 150 $S check --backend cuda --quick --templates .gpu/tpl-kt $f > /tmp/q.txt 2>&1
echo "kt quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
