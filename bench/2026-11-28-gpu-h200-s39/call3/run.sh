#!/bin/bash
# session 39 call 3: t_form after call 2's profile (the key by cp.async, no register staging; warp 0's scalars beside the
# other warps' K K' products, one barrier less; the rounds four columns a thread; chunk_of's 32-bit division) against
# 2fa35d3 (the session's start) in the same call: GDN B8 T4096 H16, B1 T32768 H16 (two rounds), K = V = 64 H32 B8;
# fla's forward at B1 T32768; checks (--quick: GDN, DeltaNet, GDN K = V = 64, the split and k96 fixtures);
# racecheck and memcheck of prep_fused (the K = 32 fixture); prep_fused under ncu (GDN B8)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s38 # fla_gdn_fwd.py (the call ran a byte-identical copy in this record)
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
G=dsl/families/gated_deltanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $6, $10}'
  done
}
for s in $G dsl/families/deltanet.yaml $G64 $F/emu_split_delta.yaml $F/emu_f90_delta_k96.yaml; do
  timeout 60 $S check --backend cuda --no-bwd --quick $s >> $OUT/check.txt 2>&1; echo "check $(basename $s) rc=$?"
done
grep -E "FAIL|comparisons" $OUT/check.txt
run 1 $G "--B 8 --T 4096 --H 16" "new 2fa35d3"
run 1 $G "--B 1 --T 32768 --H 16" "new 2fa35d3"
run 1 $G64 "--B 8 --T 4096 --H 32" "new 2fa35d3"
run 2 $G "--B 1 --T 32768 --H 16" "new 2fa35d3"
PYTHONPATH=.fla timeout 150 python3 $R/fla_gdn_fwd.py 1,32768,16,128 > $OUT/fla.txt 2>&1; tail -1 $OUT/fla.txt
run 3 $G "--B 1 --T 32768 --H 16" "new 2fa35d3"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --kernel-regex kns=prep_fused --error-exitcode 9 $S check --backend cuda --no-bwd --quick $F/emu_f90_delta.yaml > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/san-$tool.txt
done
timeout 90 ncu -k regex:"bf16_prep_fused\$" -c 1 --section SpeedOfLight --section LaunchStats --section InstructionStats $S bench --backend cuda --dtype bf16 --no-bwd $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu.txt 2>&1
grep -E "Duration|Executed Instructions  |Registers Per|Compute \(SM\)|L1/TEX Cache" $OUT/ncu.txt
