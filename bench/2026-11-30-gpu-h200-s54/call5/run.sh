#!/bin/bash
# s54 call 5: BQS with its copies deeper (query rows two steps ahead in three buffers, dY's rows fetched two steps
# ahead into two register sets, the chunk's decay a step ahead) against a81e502 (tpl-base), Mamba-2 bf16 on the H200.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in tree .gpu/tpl-base; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  for sh in "1 32768" "2 16384"; do set -- $sh
  timeout 40 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B $1 --T $2 --H 16 \
    --rows bwd-saved --reps 5 2>&1 | grep -E " bwd-saved |rror" | sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
done; done
for sh in "8 4096" "1 32768"; do set -- $sh
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows bwd-saved --reps 1 --B $1 --T $2 --H 16 dsl/families/mamba2.yaml > /tmp/g.csv 2>/tmp/g.err
echo "== tree B$1" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -E "bprep|bscan" | tee -a $OUT/durations.txt
done
for f in dsl/families/mamba2.yaml examples/my_ssm.yaml tests/fixtures/specs/emu_seq.yaml tests/fixtures/specs/emu_scalar_v80.yaml; do
timeout 60 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
grep bf16 /tmp/q.txt | grep -E " dg | dk | dq " | sort -g -k6 | tail -1 | cut -c1-160 >> $OUT/checks.txt
done
timeout 60 compute-sanitizer --tool racecheck --kernel-name kns=bscan --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_wg_scalar.yaml > /tmp/rc.txt 2>&1
echo "racecheck bscan emu_wg_scalar rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|comparisons' /tmp/rc.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
