#!/bin/bash
# session 43 call 2: bstate in two blocks an SM of 256 threads (value tile 32 at K = V = 128, dZ_L's local part read
# from global memory by its product) against b0c3867's templates (one block of 512 threads, value tile 64), same call:
# GDN, DeltaNet, KDA checked (--quick, with the backward); GDN B8 T4096 H16, B2 T16384, B1 T32768, K=V=64 H32 B8
# and DeltaNet / KDA B8 timed (bf16)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu
S=$PWD/.gpu/ssmc
mkdir -p $OUT/c
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
one() { n=$(basename $1 .yaml); SSMC_CACHE_DIR=$(mktemp -d) timeout 200 $S check --backend cuda --quick --templates templates $1 > $OUT/c/$n.txt 2>&1; echo "$n rc=$? $(grep -E '^check:' $OUT/c/$n.txt) fails=$(grep -c FAIL $OUT/c/$n.txt) $(grep -E 'edges .*bwd[a-z0-9-]* dg' $OUT/c/$n.txt | awk '{print $(NF-2)}' | sort -g | tail -1)"; }
export -f one; export S OUT
ls dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/kda.yaml tests/fixtures/specs/emu_delta_c16.yaml | xargs -P 4 -I{} bash -c 'one {}' | tee $OUT/summary.txt
tar -czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
export SSMC_CACHE_DIR=$(mktemp -d)
b() { # spec shape
  for v in templates .gpu/tpl-b0c3867; do
    timeout 100 $S bench --templates $v --backend cuda --dtype bf16 dsl/families/$1.yaml $2 --decode 1 --reps 10 2>&1 |
      grep -E " (bwd|bwd-saved|bwd-narrow|fwd\+bwd-saved) |rror" | sed "s|^|$(basename $v) $1 $(echo $2 | tr -d ' -') |" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $5, $9}'
  done
}
b gated_deltanet "--B 8 --T 4096 --H 16"
b gated_deltanet "--B 2 --T 16384 --H 16"
b gated_deltanet "--B 1 --T 32768 --H 16"
b2() { for v in templates .gpu/tpl-b0c3867; do timeout 100 $S bench --templates $v --backend cuda --dtype bf16 bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml --B 8 --T 4096 --H 32 --decode 1 --reps 10 2>&1 | grep -E " (bwd|bwd-saved|fwd\+bwd-saved) |rror" | sed "s|^|$(basename $v) gdn_k64 B8T4096H32 |" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $5, $9}'; done; }; b2
b deltanet "--B 8 --T 4096 --H 16"
b kda "--B 8 --T 4096 --H 16"
b gated_deltanet "--B 8 --T 4096 --H 16"
