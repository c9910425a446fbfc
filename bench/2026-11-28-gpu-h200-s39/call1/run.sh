#!/bin/bash
# session 39 call 1: prep_fused's T form rewritten (t_form: N's lower blocks by mma16 masked in the accumulators, the
# diagonal blocks' inverses by forward substitution, the doubling in three rounds of fp32 dots) against 2fa35d3's
# templates (the generic prep_body) in the same call: GDN B8 T4096 H16, B1 T32768 H16, K = V = 64 H32 B8, DeltaNet
# B8; fla's forward at B1 T32768 and B8; checks (GDN with T = 4096, DeltaNet, GDN K = V = 64, the split and k96
# fixtures); compute-sanitizer on the K = 32 fixture; prep_fused under ncu at GDN B8 (both templates)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s38 # fla_gdn_fwd.py (the call ran a byte-identical copy in this record)
G64=bench/2026-11-23-gpu-h200-fused90/gdn_k64.yaml
G=dsl/families/gated_deltanet.yaml
D=dsl/families/deltanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round spec shape variants
  for v in $4; do
    case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
    timeout 90 "${x[@]}" --backend cuda --dtype bf16 --no-bwd $2 $3 --decode 1 --reps 20 2>&1 | grep -E " fwd(-[a-z0-9]+)? |rror" | sed "s/^/round$1 $v $(basename $2 .yaml) $(echo $3 | tr -d ' -') /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $5, $6, $10}'
  done
}
timeout 100 $S check --backend cuda --dtype bf16 --no-bwd $G > $OUT/check.txt 2>&1; echo "check gdn rc=$?"
for s in $D $G64 $F/emu_split_delta.yaml $F/emu_f90_delta_k96.yaml; do
  timeout 60 $S check --backend cuda --dtype bf16 --no-bwd --quick $s >> $OUT/check.txt 2>&1; echo "check $(basename $s) rc=$?"
done
grep -E "FAIL|comparisons" $OUT/check.txt; grep -E "T=4096 .*fwd-fused90" $OUT/check.txt
for r in 1 2; do
  run $r $G "--B 8 --T 4096 --H 16" "new 2fa35d3"
  run $r $G "--B 1 --T 32768 --H 16" "new 2fa35d3"
  run $r $G64 "--B 8 --T 4096 --H 32" "new 2fa35d3"
done
run 1 $D "--B 8 --T 4096 --H 16" "new 2fa35d3"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --dtype bf16 --no-bwd --quick $F/emu_f90_delta.yaml > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$?"; tail -2 $OUT/san-$tool.txt
done
for v in new 2fa35d3; do
  case $v in new) x=($S bench);; *) x=($S bench --templates .gpu/tpl-$v);; esac
  timeout 90 ncu -k regex:"bf16_prep_fused\$" -c 1 --section SpeedOfLight --section LaunchStats --section InstructionStats "${x[@]}" --backend cuda --dtype bf16 --no-bwd $G --B 8 --T 4096 --H 16 --decode 1 --reps 1 > $OUT/ncu-$v.txt 2>&1
  grep -E "Duration|Executed Instructions  |Registers Per|Compute \(SM\)" $OUT/ncu-$v.txt | sed "s/^/$v /"
done
PYTHONPATH=.fla timeout 240 python3 $R/fla_gdn_fwd.py 1,32768,16,128 8,4096,16,128 > $OUT/fla.txt 2>&1; tail -2 $OUT/fla.txt
