#!/bin/bash
# session 25 call 6 (the tree: the narrow state pass's B operands rounded once into tf32 copies): GDN B1 T32768
# H16 bf16, the tree against 975ee40's templates (calls 4-5), two rounds; checks of GDN, DeltaNet, KDA and
# examples/ (every state pass changed this session)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}' | grep -E "narrow|saved"
  done
}
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-975ee40"
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml ".gpu/tpl-975ee40 tree"
for f in dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/kda.yaml examples/my_ssm.yaml; do
  b=$(basename $f .yaml)
  timeout 130 $S check --backend cuda --quick $f > $OUT/check-$b.txt 2>&1
  echo "check $b rc=$?"; grep "^check:" $OUT/check-$b.txt; grep FAIL $OUT/check-$b.txt | head -3
done
