#!/bin/bash
# s54 call 2: BSQ (dZ0's chunk-local part (q~ e^b)' dY formed in bstate as q' (s dY), not bprep's product stored) on
# top of 050b7bb (kt-fastest bgrad), against 050b7bb's templates (tpl-base), H200, bf16: A/B, ncu stage times, checks,
# compute-sanitizer on bstate.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for f in gated_deltanet deltanet; do
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16 \
    --rows bwd-saved --reps 5 2>&1 | grep -E " bwd-saved |rror" | sed "s|^|round$r $v gdn-B1 |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
done; done
for v in tree .gpu/tpl-base; do t=(); [ $v = tree ] || t=(--templates $v)
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml tests/fixtures/specs/emu_bgw_delta.yaml tests/fixtures/specs/emu_delta.yaml tests/fixtures/specs/emu_split_delta.yaml tests/fixtures/specs/bwd_delta_unscaled.yaml; do
timeout 100 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep bf16 /tmp/q.txt | grep -E " dg | dk | dq " | sort -g -k6 | tail -2 | cut -c1-160 >> $OUT/checks.txt
done
timeout 100 compute-sanitizer --tool memcheck --kernel-name kns=bstate --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/m.txt 2>&1
echo "memcheck bstate emu_bgw_delta rc=$? $(grep -E 'ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
for f in emu_bgw_delta emu_delta; do
timeout 100 compute-sanitizer --tool racecheck --kernel-name kns=bstate --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/$f.yaml > /tmp/rc.txt 2>&1
echo "racecheck bstate $f rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/rc.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done
