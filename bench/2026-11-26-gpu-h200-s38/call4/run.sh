#!/bin/bash
# session 38 call 4: fused90_scan on ITEMS_ELEMS blocks (8 value columns a block at K = 128, 256 blocks at B1 H16)
# with each segment's transition by cp.async a segment ahead, against 87cae51's scan (a value tile of 64 a block, P
# loaded each step; call 3: 146 us under ncu); GDN B1 T32768 H16 beside fla's forward in the same call; checks and
# racecheck of the new scan
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s38
G=dsl/families/gated_deltanet.yaml
F=tests/fixtures/specs/emu_split_delta.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd-(split|narrow) |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for r in 1 2; do run $r $G "--B 1 --T 32768 --H 16" "new 87cae51"; done
run 1 $G "--B 2 --T 16384 --H 16" "new 87cae51"
PYTHONPATH=.fla timeout 200 python3 $R/fla_gdn_fwd.py 1,32768,16,128 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
run 3 $G "--B 1 --T 32768 --H 16" "new"
timeout 100 $S check --backend cuda --dtype bf16 --no-bwd $G > $OUT/check-gdn.txt 2>&1
echo "check gdn rc=$?"; grep -E "split|comparisons" $OUT/check-gdn.txt | grep -E "FAIL|comparisons|T=4096"
timeout 100 $S check --backend cuda --dtype bf16 --no-bwd --quick bench/2026-11-26-gpu-h200-s37/deltanet_k64.yaml $F > $OUT/check-quick.txt 2>&1
echo "check quick rc=$?"; grep -E "FAIL|comparisons" $OUT/check-quick.txt
timeout 90 compute-sanitizer --tool racecheck $S check --backend cuda --dtype bf16 --quick --no-bwd $F > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|comparisons" $OUT/racecheck.txt
