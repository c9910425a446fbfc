#!/bin/bash
# session 19 call 5: the decay masks four columns at a time without exponentials above the diagonal
# (pair_decay), row scalings with one exponential a row (rows_scale), bgrad's Z_L . dZ_L shuffles once at
# the end (row_dots_put); working tree against 3111f10 (.gpu/tpl-3111f10); then checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
run() { # round shape spec
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 70 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
  done
}
for r in 1 2; do
  for sp in mamba2 gated_deltanet; do run $r "--B 8 --T 4096" dsl/families/$sp.yaml; done
done
run 1 "--B 1 --T 32768" dsl/families/mamba2.yaml
for s in mamba2 gated_deltanet; do
  timeout 60 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3
done
cd $OUT && tar czf call5.tgz *.txt
