#!/bin/bash
# call 8: fprep with MM_BWD (one tf32 product for bf16 without an erase; tree) vs 68ee13b (fprep MM_TF3);
# the K = V = 64 H32 shape of the issue (Mamba-2-like fixture, GDN) against 2565e1c (the session's start)
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
tp() { case $1 in tree) echo "";; *) echo "--templates .gpu/tpl-$1";; esac; }
for rep in 1 2; do
  for v in 68ee13b tree; do
    timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 > $OUT/m2-b8-$v-$rep.txt 2>&1
    echo "mamba2 B8 $v $rep: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/m2-b8-$v-$rep.txt | awk '{print $2, $6}' | tr '\n' ' ')"
  done
done
for f in tests/fixtures/specs/cuda_fused_k64.yaml bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml; do
  for v in 2565e1c tree; do
    timeout 100 $S bench $(tp $v) --backend cuda --dtype bf16 --decode 1 --reps 10 $f --B 8 --T 4096 --H 32 > $OUT/k64-$(basename $f .yaml)-$v.txt 2>&1
    echo "$(basename $f .yaml) B8 H32 $v: $(grep -E ' (bwd|fwd\+bwd) ' $OUT/k64-$(basename $f .yaml)-$v.txt | awk '{print $2, $6}' | tr '\n' ' ')"
  done
done
timeout 150 $S check --backend cuda dsl/families/mamba2.yaml > $OUT/check-mamba2.txt 2>&1
echo "check mamba2: $(tail -1 $OUT/check-mamba2.txt)"; grep FAIL $OUT/check-mamba2.txt | head -3
grep bwd $OUT/check-mamba2.txt | grep bf16 | sort -k6 -g | tail -2
