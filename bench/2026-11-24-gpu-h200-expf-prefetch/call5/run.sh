#!/bin/bash
# session 18 call 5: the chunk-to-chunk passes' decay folded into the accumulators' load of their update
# product (state, state_n, fstate, fstate_n: Z = diag(e^{b_L}) Z + kd'u; bstate, bstate_n: dZ = e^{b_L} dZ +
# dZ_L,loc + W'du), working tree against 7e3a1fc (.gpu/tpl-7e3a1fc); GDN bf16 H16, two rounds; then checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
G=dsl/families/gated_deltanet.yaml
base=$(ls -d .gpu/tpl-* | head -1)
for r in 1 2; do
  for sh in "--B 1 --T 32768" "--B 8 --T 4096"; do
    for v in tree $base; do
      t=(); [ $v = tree ] || t=(--templates $v)
      timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" $G $sh --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | sed "s/^/round$r $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
    done
  done
done
for s in gated_deltanet deltanet kda; do
  timeout 90 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3
done
