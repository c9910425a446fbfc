#!/bin/bash
# s53 call 5: bgrad with two producer warpgroups in its wgmma loop (an erase module's: 640 threads, three multiplying),
# against f77c9e7 (tpl-base), on the H200. Packed: scripts/gpu-pack.sh f77c9e7 (tpl-f77c9e7 -> tpl-base), cache filled.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in .gpu/tpl-base tree; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for f in gated_deltanet deltanet; do
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for v in .gpu/tpl-base tree; do t=(); [ $v = tree ] || t=(--templates $v)
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml tests/fixtures/specs/emu_bgw_delta.yaml tests/fixtures/specs/emu_split_delta.yaml; do
timeout 120 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
cp /tmp/q.txt $OUT/check-$(basename $f .yaml).txt
done
timeout 150 compute-sanitizer --tool memcheck --kernel-name kns=bgrad --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/m.txt 2>&1
echo "memcheck bgrad emu_bgw_delta rc=$? $(grep -E 'ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
