#!/bin/bash
# s54 call 4: BQS (Mamba-2 and every module without an erase or per-key decays whose query is a bf16 input): bscan a
# tile pass forming dZ0's chunk-local part q' (s dY) itself, value tiles of 32 (the tree) or 16 (tpl-q16), against
# a81e502 (tpl-base: bprep's product stored, elementwise bscan). H200 bf16; A/B, ncu, checks, compute-sanitizer.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-q16 .gpu/tpl-base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  for sh in "1 32768" "2 16384"; do set -- $sh
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B $1 --T $2 --H 16 \
    --rows bwd-saved --reps 5 2>&1 | grep -E " bwd-saved |rror" | sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
done; done
for v in tree .gpu/tpl-q16 .gpu/tpl-base; do t=(); [ $v = tree ] || t=(--templates $v)
for sh in "8 4096" "1 32768"; do set -- $sh
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows bwd-saved --reps 1 --B $1 --T $2 --H 16 dsl/families/mamba2.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v B$1" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done; done
for f in dsl/families/mamba2.yaml examples/my_ssm.yaml tests/fixtures/specs/emu_scalar_v80.yaml tests/fixtures/specs/emu_wg_scalar.yaml tests/fixtures/specs/emu_seq.yaml tests/fixtures/specs/emu_f90.yaml tests/fixtures/specs/emu_f90_v64.yaml; do
timeout 100 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep bf16 /tmp/q.txt | grep -E " dg | dk | dq " | sort -g -k6 | tail -1 | cut -c1-160 >> $OUT/checks.txt
done
timeout 100 $S check --backend cuda --quick --templates .gpu/tpl-q16 dsl/families/mamba2.yaml > /tmp/q.txt 2>&1
echo "q16 quick mamba2 rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt
timeout 100 compute-sanitizer --tool memcheck --kernel-name kns=bscan --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_wg_scalar.yaml > /tmp/m.txt 2>&1
echo "memcheck bscan emu_wg_scalar rc=$? $(grep -E 'ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
timeout 100 compute-sanitizer --tool racecheck --kernel-name kns=bscan --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_wg_scalar.yaml > /tmp/rc.txt 2>&1
echo "racecheck bscan emu_wg_scalar rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/rc.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
