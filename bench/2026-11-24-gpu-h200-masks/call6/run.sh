#!/bin/bash
# session 19 call 6: the split products' lo part passed to mma.sync untruncated by software (tf32_lo: the
# tensor cores read its upper 19 bits); working tree against d8427d6 (.gpu/tpl-d8427d6); then checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
run() { # round shape spec
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 70 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
  done
}
for r in 1 2; do run $r "--B 8 --T 4096" dsl/families/gated_deltanet.yaml; done
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml
run 1 "--B 8 --T 4096" dsl/families/kda.yaml
for s in gated_deltanet deltanet kda; do
  timeout 75 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3
done
cd $OUT && tar czf call6.tgz *.txt
