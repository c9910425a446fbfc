#!/bin/bash
# Session 49, call 2 (the tree of call 1): checks on the H200 of the modules with an erase (GDN full; DeltaNet, KDA,
# GKA, the erase fixtures, examples/ and unseen specs quick), compute-sanitizer memcheck and racecheck on two small
# erase fixtures.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
san() { # tool, name, ssmc args...
  local tool=$1 n=$2; shift 2
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick "$@" > /tmp/san-$n.txt 2>&1
  echo "$n rc=$?"; tail -2 /tmp/san-$n.txt
  grep -E "^========= +(Error|Race|Warning|Invalid)|^========= +at |in .*(_b[a-z]+|_fused|_prep|_seg)" /tmp/san-$n.txt | sort | uniq -c | sort -rn | head -20
}
mkdir -p /tmp/c
one() {
  n=$(basename $1 .yaml); t0=$(date +%s)
  timeout 240 $S check --backend cuda --quick $1 > /tmp/c/$n.txt 2>&1; rc=$?
  echo "$n rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 /tmp/c/$n.txt | cut -c1-100)"
}
export -f one; export S
( ls examples/*.yaml bench/2026-11-29-gpu-h200-s46/unseen/{c_dn_k96v32,d_gdn_k64v64_c128,e_kda_k32v64_c16,i_gdn_k256v128,j_dn_decay_gate,u_gdn_k128v64,u_kda_k64v96_c32,f_gka_k32v32}.yaml \
  tests/fixtures/specs/{emu_delta,emu_delta_c16,emu_bgw_delta,emu_f90_delta,emu_f90_delta_k96,emu_split_delta,emu_diag_delta_c64,bwd_delta_unscaled,bwd_diag_delta,cuda_solve_delta}.yaml \
  dsl/families/{deltanet,kda,gated_kalmanet}.yaml | xargs -P 6 -I{} bash -c 'one {}' | sort > $OUT/summary.txt ) &
timeout 200 $S check --backend cuda dsl/families/gated_deltanet.yaml > /tmp/c/full-gdn.txt 2>&1
echo "full gated_deltanet rc=$? $(tail -1 /tmp/c/full-gdn.txt)" > $OUT/full.txt
wait
{ san memcheck memcheck tests/fixtures/specs/emu_bgw_delta.yaml; san racecheck racecheck tests/fixtures/specs/emu_bgw_delta.yaml
  san racecheck racecheck-kda tests/fixtures/specs/emu_diag_delta_c64.yaml; } 2>&1 | tee $OUT/sanitizer.txt
cat $OUT/summary.txt $OUT/full.txt
grep -l -E "FAIL|error" /tmp/c/*.txt | xargs -r grep -H -E "FAIL|error" | head -40 > $OUT/failures.txt
grep -h -E " edges .* d(g|beta|q|k) " /tmp/c/full-gdn.txt /tmp/c/kda.txt /tmp/c/deltanet.txt > $OUT/edges.txt
