#!/bin/bash
# s56 call 4: (1) what the narrow bstate_n on R16 (1.75 ms at GDN B1) is made of: leave-one-out variants of its R16
# path (results wrong, times only): n16noprod (its four products), n16noload (the step's key, factor, query and T
# loads), n16nody (dY's rows of the next step: fetch and puts), n16nostz (dZ_L's stores); (2) B8 against the base
# (15595c0's templates: the wide form's R16 path now goes through steps<RING = 0>); (3) the tree's runtime (58d79ca:
# SSMC_CUDA_FORMS, the loader skipping fused_sm90_keep) on quick checks with kept forwards.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
B="dsl/families/gated_deltanet.yaml --B 1 --T 32768 --H 16"
for v in tree n16noprod n16noload n16nody n16nostz; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 $B --rows bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  timeout 60 ncu --clock-control none -k regex:bstate --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
    --dtype bf16 $B --rows bwd-saved --reps 1 $t > /tmp/n.csv 2>/tmp/n.err
  echo "== $v" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/n.csv | tee -a $OUT/durations.txt
done
for s in gated_deltanet deltanet mamba2; do
  for v in tree base; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$s.yaml --B 8 --T 4096 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v B8 /" | tee -a $OUT/ab.txt
  done
done
for f in dsl/families/gated_deltanet.yaml dsl/families/mamba2.yaml tests/fixtures/specs/emu_f90_delta.yaml tests/fixtures/specs/emu_f90.yaml dsl/families/gated_kalmanet.yaml; do
  timeout 150 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt) saved rows: $(grep -c 'bwd-saved' /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL|rror" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
