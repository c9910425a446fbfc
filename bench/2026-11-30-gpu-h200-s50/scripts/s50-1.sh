#!/bin/bash
# call 1 (run as: tar -xJf .gpu-pack/gpu.tar.xz && bash .gpu/s50-1.sh; pack: scripts/gpu-pack.sh at 9f78492, then
# .gpu/tpl-bsdr = templates + s49's next/bstate-dr.diff, .gpu/tpl-ra and tpl-rb as s49's next/run.sh says)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-bsdr; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for f in gated_deltanet; do
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for v in tree .gpu/tpl-bsdr; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
  echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
timeout 150 $S check --backend cuda --templates .gpu/tpl-bsdr dsl/families/gated_deltanet.yaml > /tmp/full.txt 2>&1
echo "full gdn bsdr rc=$? $(tail -n1 /tmp/full.txt)" | tee $OUT/checks.txt
for f in dsl/families/kda.yaml dsl/families/deltanet.yaml; do
timeout 90 $S check --backend cuda --quick --templates .gpu/tpl-bsdr $f > /tmp/q.txt 2>&1
echo "quick $f bsdr rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; done
for v in ra rb; do
  timeout 60 compute-sanitizer --tool racecheck --kernel-name kns=bgrad --error-exitcode 9 $S check --backend cuda --quick \
    --templates .gpu/tpl-$v tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/r-$v.txt 2>&1
  echo "== $v rc=$? $(grep -E 'comparisons|RACECHECK SUMMARY' /tmp/r-$v.txt | tr '\n' ' ')" | tee -a $OUT/racecheck.txt
done
