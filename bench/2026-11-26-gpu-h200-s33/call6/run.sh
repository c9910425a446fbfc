#!/bin/bash
# session 33 call 6 (the kept forward's y rows): check --backend cuda with the backward on the solve fixtures, GKA and
# the built-in families with a kept forward (GDN, Mamba-2), bwd-saved y rows printed
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
F=tests/fixtures/specs
for f in dsl/families/gated_kalmanet.yaml dsl/families/gated_deltanet.yaml dsl/families/mamba2.yaml $F/emu_solve_bf.yaml $F/cuda_solve_delta.yaml; do
  n=$(basename $f .yaml)
  timeout 200 $S check --backend cuda --quick $f > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt) saved-y rows: $(grep -c 'saved[-a-z0-9]* y ' $OUT/check-$n.txt)"; grep -E "FAIL|error" $OUT/check-$n.txt | head -5
  grep -E "bf16 (T=1|edges) .*saved[-a-z0-9]* y " $OUT/check-$n.txt | head -4
done
cd $OUT && tar -czf logs.tgz check-*.txt && rm -f check-*.txt
