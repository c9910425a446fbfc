#!/bin/bash
# session 36 call 6: HD with v by ldmatrix and the y pieces unspilled (4a687ca) against ce1de02's templates:
# GDN and DeltaNet B8 T4096 H16, GDN B2 and B4; fla's chunk_gated_delta_rule in the same call; GDN's forward
# check (quick) and compute-sanitizer on emu_f90_delta
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 60 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-fused90)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
G=dsl/families/gated_deltanet.yaml
for r in 1 2; do run $r $G "--B 8 --T 4096 --H 16" "new ce1de02"; done
run 1 dsl/families/deltanet.yaml "--B 8 --T 4096 --H 16" "new ce1de02"
for b in 2 4; do run 1 $G "--B $b --T 4096 --H 16" "new"; done
PYTHONPATH=.fla timeout 240 python3 bench/2026-11-25-gpu-h200-cpasync/fla_gdn.py 8,4096,16,128 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
timeout 100 $S check --backend cuda --dtype bf16 --quick --no-bwd $G dsl/families/deltanet.yaml > $OUT/check-fwd.txt 2>&1
echo "check fwd rc=$?"; grep -E "fused90|comparisons" $OUT/check-fwd.txt | grep -E "FAIL|comparisons|T=4096"
for t in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $t $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_f90_delta.yaml > $OUT/$t.txt 2>&1
  echo "$t rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/$t.txt
done
