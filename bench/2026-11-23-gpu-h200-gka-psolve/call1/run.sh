#!/bin/bash
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; O=$OUT/r1; mkdir -p $O
G=dsl/families/gated_kalmanet.yaml
nvidia-smi -L > $O/env.txt; git log --oneline -1 >> $O/env.txt 2>/dev/null
( time timeout 150 $S check --backend cuda --quick --no-bwd $G ) > $O/check-gka-fwd.txt 2>&1
grep -cE "FAIL|error" $O/check-gka-fwd.txt
b() { timeout 200 $S bench --backend cuda --dtype bf16 "$@" --decode 1; }
( b $G --B 8 --T 4096 --H 16 --reps 5 ) > $O/tree-b8.txt 2>&1
grep -E " fwd|bwd" $O/tree-b8.txt
for v in e57bc8f 778fa2e; do ( b --templates .gpu/tpl-$v $G --B 8 --T 4096 --H 16 --reps 5 $([ $v = 778fa2e ] && echo --no-bwd) ) > $O/$v-b8.txt 2>&1; echo $v; grep -E " fwd|bwd" $O/$v-b8.txt; done
( b $G --B 4 --T 4096 --H 16 --reps 5 --no-bwd ) > $O/tree-b4.txt 2>&1; grep -E " fwd" $O/tree-b4.txt
( b $G --B 1 --T 32768 --H 16 --reps 3 --no-bwd ) > $O/tree-b1.txt 2>&1; grep -E " fwd" $O/tree-b1.txt
( b $G --B 2 --T 4096 --H 16 --reps 5 --no-bwd ) > $O/tree-b2.txt 2>&1; grep -E " fwd" $O/tree-b2.txt
