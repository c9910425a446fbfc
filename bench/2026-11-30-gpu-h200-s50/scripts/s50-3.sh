#!/bin/bash
# call 3: the working tree (HD keep: prep_fused_keep + fused90d keep) against 7968253 (BS_KF alone: .gpu/tpl-7968253)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
timeout 150 $S check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/full.txt 2>&1
echo "full gdn rc=$? $(tail -n1 /tmp/full.txt)" | tee $OUT/checks.txt
grep -E "FAIL|edges .*bwd-saved.* (dg|dq|dk|dbeta) " /tmp/full.txt | head -12 >> $OUT/checks.txt
for f in dsl/families/deltanet.yaml tests/fixtures/specs/{emu_f90_delta,emu_f90_delta_k96,emu_bgw_delta,cuda_solve_delta,emu_split_delta,bwd_exotic}.yaml; do
timeout 60 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep FAIL /tmp/q.txt | head -5 >> $OUT/checks.txt; done
timeout 60 compute-sanitizer --tool memcheck --kernel-name kns=_keep --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/emu_f90_delta.yaml > /tmp/m.txt 2>&1
echo "memcheck keep rc=$? $(grep -E 'comparisons|ERROR SUMMARY' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
for r in 1 2; do for v in .gpu/tpl-7968253 new; do
  t=(); [ $v = new ] || t=(--templates $v)
  for f in gated_deltanet deltanet; do
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for v in .gpu/tpl-7968253 new; do
  t=(); [ $v = new ] || t=(--templates $v)
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
  echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
