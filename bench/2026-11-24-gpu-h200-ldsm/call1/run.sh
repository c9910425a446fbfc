#!/bin/bash
# session 20 call 1: the generic mm's fragments by ldmatrix where k is contiguous; the split lo part unrounded
# in the narrow state passes (non-per-key-decay modules); working tree (4fb3084) against b90ee6d; then checks
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=$(ls -d .gpu/tpl-* | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
run() { # round shape spec [extra]
  for v in tree $base; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $9}'
  done
}
for s in mamba2 gated_deltanet deltanet kda gla; do
  timeout 100 $S check --backend cuda --quick dsl/families/$s.yaml > $OUT/check-$s.txt 2>&1
  echo "check $s rc=$?"; grep "^check:" $OUT/check-$s.txt; grep FAIL $OUT/check-$s.txt | head -3
done
for r in 1 2; do
  for sp in mamba2 gated_deltanet; do run $r "--B 8 --T 4096" dsl/families/$sp.yaml; done
done
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml
run 1 "--B 1 --T 32768" dsl/families/mamba2.yaml
run 1 "--B 8 --T 4096" dsl/families/kda.yaml
timeout 150 $S check --backend cuda --quick dsl/families/gated_kalmanet.yaml > $OUT/check-gated_kalmanet.txt 2>&1
echo "check gka rc=$?"; grep "^check:" $OUT/check-gated_kalmanet.txt; grep FAIL $OUT/check-gated_kalmanet.txt | head -3
cd $OUT && tar czf call1.tgz *.txt
