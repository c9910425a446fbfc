#!/bin/bash
# s55 call 2: the kept forward split as the plain one (without an erase: fused90_keep runs each segment from the
# scan's start state, a segment's slot its first chunk's) against 7b6898a (tpl-base: a kept forward never split).
# Mamba-2 bf16 fwd, bwd-saved and fwd+bwd-saved (forward kept); full check of Mamba-2, quick checks of the split
# fixtures, compute-sanitizer on fused90_keep, ncu stage times at B1.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  for sh in "1 32768 16 m" "2 16384 16 m" "4 8192 16 m" "8 4096 16 m" "8 4096 32 k64"; do set -- $sh
  f=dsl/families/mamba2.yaml; [ $4 = k64 ] && f=tests/fixtures/specs/cuda_fused_k64.yaml
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" $f --B $1 --T $2 --H $3 \
    --rows fwd,bwd-saved,fwd+bwd-saved --reps 5 2>&1 | grep -E " fwd | bwd-saved| fwd\+bwd-saved|rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $7, $8, $10}'
  done
done; done
timeout 200 $S check --backend cuda dsl/families/mamba2.yaml > /tmp/q.txt 2>&1
echo "full mamba2 rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep -E "saved-split" /tmp/q.txt > $OUT/mamba2-split-rows.txt
for f in tests/fixtures/specs/emu_f90.yaml tests/fixtures/specs/emu_f90_v64.yaml tests/fixtures/specs/cuda_f90_k48.yaml tests/fixtures/specs/cuda_fused_k64.yaml examples/my_ssm.yaml; do
timeout 100 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for tool in memcheck racecheck; do
timeout 150 compute-sanitizer --tool $tool --kernel-name regex:fused90_keep --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_f90.yaml > /tmp/m.txt 2>&1
echo "$tool fused90_keep emu_f90 rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done
for v in tree .gpu/tpl-base; do t=(); [ $v = tree ] || t=(--templates $v)
for sh in "1 32768" "2 16384"; do set -- $sh
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B $1 --T $2 --H 16 dsl/families/mamba2.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== $v B$1" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done; done
