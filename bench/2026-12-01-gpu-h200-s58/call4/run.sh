#!/bin/bash
# s58 call 4 (70 s): GDN's forward variants alone at B4 T8192 and B8 T4096 (the tree, b835e2d); output in README.md
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "4 8192" "8 4096"; do set -- $sh; timeout 120 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/gated_deltanet.yaml --B $1 --T $2 --H 16 --reps 5 --no-bwd 2>&1 | grep -E "fwd|rror" | awk '{print $2,$3,$4,$5,$6,$7}'; done
