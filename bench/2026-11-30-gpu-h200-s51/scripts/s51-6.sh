#!/bin/bash
# call 6: the tree (z_store: fused90's state stores in one helper; fused90's launch smem from the body that runs:
# HB, HD or HL) on the H200: bwd_delta_unscaled (HL > HD: its launch smem 133888 -> 117888 B) under memcheck, GDN quick
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
timeout 150 compute-sanitizer --tool memcheck --kernel-name kns=_fused90 --error-exitcode 9 $S check --backend cuda --quick tests/fixtures/specs/bwd_delta_unscaled.yaml > /tmp/m.txt 2>&1
echo "memcheck bwd_delta_unscaled fused90 rc=$? $(grep -E 'comparisons|ERROR SUMMARY' /tmp/m.txt | tr '\n' ' ')" | tee $OUT/checks.txt
grep -E "FAIL" /tmp/m.txt | head -5 >> $OUT/checks.txt
timeout 120 $S check --backend cuda --quick dsl/families/gated_deltanet.yaml > /tmp/q.txt 2>&1
echo "quick gdn rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep FAIL /tmp/q.txt | head -5 >> $OUT/checks.txt
