#!/bin/bash
# session 42 call 6: the backward's split products as MM_TF3P on sm_90 (each k step's products summed from zero, then
# added): GDN at chunks 16 and 32 and K = 64 V = 128 (edge dg over its bound in calls 2 and 5), the built-in GDN, KDA
# and GKA checked; GDN and KDA B8 T4096 H16 bf16 timed against 7a606e1's templates (MM_TF3) in the same call
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s42
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 300 $S check --backend cuda --quick --templates templates $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt) $(grep -E 'edges .*bwd[a-z0-9-]* dg' $OUT/c/$n.txt | awk '{print $(NF-2)}' | sort -g | tail -1)"; }
export -f one; export S OUT
ls $D/call5/specs/gated_deltanet_k128v128c16.yaml $D/call5/specs/gated_deltanet_k128v128c32.yaml $D/call3/gated_deltanet_k64v128c64.yaml dsl/families/gated_deltanet.yaml dsl/families/kda.yaml dsl/families/gated_kalmanet.yaml tests/fixtures/specs/emu_f90_delta_k96.yaml dsl/families/deltanet.yaml | xargs -P 4 -I{} bash -c 'one {}' | tee $OUT/summary.txt
export SSMC_CACHE_DIR=$(mktemp -d)
for f in gated_deltanet kda; do
  for v in templates .gpu/tpl-7a606e1; do
    timeout 90 $S bench --templates $v --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --decode 1 --reps 10 2>&1 |
      grep -E " (bwd|bwd-saved|fwd\+bwd|fwd\+bwd-saved) |rror" | sed "s|^|$(basename $v) $f |" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $8}'
  done
done
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
