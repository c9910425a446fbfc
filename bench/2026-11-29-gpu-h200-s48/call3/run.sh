#!/bin/bash
# Session 48, call 3: kd never stored (KDU_B: bval forms kd = K e^{b_L - b} from the keys; bprep writes U and the
# chunks' decays; the per-token workspace loses kd), bgrad unchanged. "tree" that form, .gpu/tpl-<HEAD> call 1's
# (bprep stores kd and U). Mamba-2 bf16 B8 T4096 H16 bwd, bwd-saved, fwd+bwd-saved, two rounds; GKA
# fwd+bwd-saved; ncu stage durations; compute-sanitizer memcheck and racecheck on Mamba-2's quick check (the
# hazards' kernels and lines kept), and racecheck on call 2's form (.gpu/tpl-tw7: 12 hazards there, not located);
# checks: Mamba-2 full, GKA quick, the KDU_B fixtures and unseen specs quick.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
B=$(ls -d .gpu/tpl-* | grep -v tw7 | head -1)
for r in 1 2; do for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_kalmanet.yaml --B 8 --T 4096 --H 16 \
    --rows fwd+bwd-saved --reps 5 2>&1 | grep -E "fwd\+bwd-saved |rror" | sed "s|^|gka $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml > /tmp/m2.csv 2>/tmp/m2.err
python3 bench/ncu_durations.py /tmp/m2.csv | tee $OUT/durations.txt
san() { # tool, name, ssmc args...
  local tool=$1 n=$2; shift 2
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick "$@" > /tmp/san-$n.txt 2>&1
  echo "$n rc=$?"; tail -2 /tmp/san-$n.txt
  grep -E "^========= +(Error|Race|Warning|Invalid)|^========= +at |in .*(_b[a-z]+|_fused|_prep|_seg)" /tmp/san-$n.txt | sort | uniq -c | sort -rn | head -20
}
{ san memcheck memcheck dsl/families/mamba2.yaml; san racecheck racecheck dsl/families/mamba2.yaml
  san racecheck racecheck-tw7 --templates .gpu/tpl-tw7 dsl/families/mamba2.yaml; } 2>&1 | tee $OUT/sanitizer.txt
head -c 20000 /tmp/san-racecheck-tw7.txt > $OUT/racecheck-tw7-head.txt
mkdir -p /tmp/c
one() {
  n=$(basename $1 .yaml); t0=$(date +%s)
  timeout 200 $S check --backend cuda --quick $1 > /tmp/c/$n.txt 2>&1; rc=$?
  echo "$n rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 /tmp/c/$n.txt | cut -c1-100)"
}
export -f one; export S
ls bench/2026-11-29-gpu-h200-s46/unseen/{a_mamba_k16v16,f_gka_k32v32,g_mamba_q3,u_mamba_q2_k128}.yaml examples/*.yaml \
  tests/fixtures/specs/{bwd_kv_query,bwd_sqrt_write,bwd_sum_coef,bwd_exotic,bwd_solve_short,bwd_solve_key,emu_scalar_v80,emu_wg_scalar,emu_seq,emu_f90_q2,emu_f90,emu_f90_v64,cuda_f90_q2_k128,cuda_f90_k48,cuda_fused_k64,emu_solve_bf}.yaml \
  dsl/families/gated_kalmanet.yaml | xargs -P 6 -I{} bash -c 'one {}' | sort | tee $OUT/summary.txt
timeout 100 $S check --backend cuda dsl/families/mamba2.yaml > /tmp/c/full-mamba2.txt 2>&1
echo "full mamba2 rc=$? $(tail -1 /tmp/c/full-mamba2.txt)" | tee -a $OUT/summary.txt
grep -l -E "FAIL|error" /tmp/c/*.txt | xargs -r grep -H -E "FAIL|error" | head -40 > $OUT/failures.txt
