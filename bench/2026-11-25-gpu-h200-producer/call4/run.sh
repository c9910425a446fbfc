#!/bin/bash
# session 28 call 4: bf16 outputs stored by cvt.rn.bf16x2 (st2; was two software roundings with a NaN branch each)
# (working tree) against 05dc34e: checks (Mamba-2 with its backward, GDN's forward), Mamba-2 and GDN forward A/B,
# fla's chunk_simple_gla forward twice in the same call (call 3's fla B8 H16 0.568 stands out against 0.414 / 0.415)
D=bench/2026-11-25-gpu-h200-producer
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-05dc34e
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
chk() { # spec args...
  n=$(basename $1 .yaml); s=$1; shift
  timeout 200 $S check --backend cuda --dtype bf16 "$@" $s > $OUT/check-$n.txt 2>&1
  echo "check $n rc=$? $(grep '^check:' $OUT/check-$n.txt)"; grep FAIL $OUT/check-$n.txt | head -3; grep "edges.*fwd-fused90 y" $OUT/check-$n.txt
}
chk dsl/families/mamba2.yaml
chk dsl/families/gated_deltanet.yaml --no-bwd
chk tests/fixtures/specs/cuda_fused_k64.yaml --no-bwd
run() { # round spec shape variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 100 $S bench --backend cuda --dtype bf16 --no-bwd "${t[@]}" $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? " | sed "s/^/round$1 $(basename $v) $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $8, $10}'
  done
}
for r in 1 2; do
  run $r dsl/families/mamba2.yaml "--B 8 --T 4096 --H 16" "tree $base"
  run $r tests/fixtures/specs/cuda_fused_k64.yaml "--B 8 --T 4096 --H 32" "tree $base"
done
run 1 dsl/families/gated_deltanet.yaml "--B 8 --T 4096 --H 16" "tree $base"
for r in 1 2; do
  PYTHONPATH=.fla timeout 150 python3 -u bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 8,4096,16,128 8,4096,32,64 2>&1 | tee -a $OUT/fla.txt | tail -2
done
cd $OUT && tar -czf logs.tgz check-*.txt && rm -f check-*.txt
