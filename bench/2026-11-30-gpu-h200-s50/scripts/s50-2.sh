#!/bin/bash
# call 2: the working tree at 7968253 (BS_KF) against 9f78492's templates (.gpu/tpl-9f78492: scripts/gpu-pack.sh HEAD)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in .gpu/tpl-9f78492 new; do
  t=(); [ $v = new ] || t=(--templates $v)
  for f in gated_deltanet deltanet; do
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$f.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v $f |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
  done
done; done
for v in .gpu/tpl-9f78492 new; do
  t=(); [ $v = new ] || t=(--templates $v)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
  echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
timeout 150 $S check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/full.txt 2>&1
echo "full gdn rc=$? $(tail -n1 /tmp/full.txt)" | tee $OUT/checks.txt
grep -E "edges .* (dg|dq|dk|dbeta) " /tmp/full.txt | head -8 >> $OUT/checks.txt
for f in dsl/families/kda.yaml dsl/families/deltanet.yaml examples/my_ssm.yaml tests/fixtures/specs/{bwd_delta_unscaled,bwd_diag_delta,bwd_exotic,bwd_kv_query,bwd_sum_coef,cuda_solve_delta,emu_bgw_delta,emu_delta,emu_delta_c16,emu_f90_delta,emu_f90_delta_k96,emu_split_delta,emu_wg,emu_wg_scalar}.yaml; do
timeout 90 $S check --backend cuda --quick $f > /tmp/q.txt 2>&1
echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; done
