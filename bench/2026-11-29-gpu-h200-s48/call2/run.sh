#!/bin/bash
# Session 48, call 2: kd and U never stored (KDU_B: bval forms kd from the keys, bgrad's value loop reads V as u and
# scales dA's columns and P2's rows by w after the loop; the per-token workspace loses U and kd). "tree": that form
# with bgrad's wgmma loop 16 value columns a step (no spills); .gpu/tpl-w32: the same at 32 (52 B spilled);
# .gpu/tpl-<HEAD>: call 1's form (bprep stores kd and U). Mamba-2 bf16 B8 T4096 H16 bwd, bwd-saved, fwd+bwd-saved,
# two rounds; GKA fwd+bwd-saved; ncu stage durations; compute-sanitizer on Mamba-2; `check --quick` on every
# fixture, examples/ and session 46's unseen specs (six at a time), Mamba-2's full check.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
B=$(ls -d .gpu/tpl-* | grep -v w32 | head -1)
for r in 1 2; do for v in tree .gpu/tpl-w32 $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/mamba2.yaml --B 8 --T 4096 --H 16 \
    --rows bwd,bwd-saved,fwd+bwd-saved --reps 10 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
    sed "s|^|round$r $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done; done
for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_kalmanet.yaml --B 8 --T 4096 --H 16 \
    --rows fwd+bwd-saved --reps 5 2>&1 | grep -E "fwd\+bwd-saved |rror" | sed "s|^|gka $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml > /tmp/m2.csv 2>/tmp/m2.err
python3 bench/ncu_durations.py /tmp/m2.csv | tee $OUT/durations.txt
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick dsl/families/mamba2.yaml \
    > /tmp/san-$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 /tmp/san-$tool.txt
done 2>&1 | tee $OUT/sanitizer.txt
mkdir -p /tmp/c
one() {
  n=$(basename $1 .yaml); t0=$(date +%s)
  timeout 200 $S check --backend cuda --quick $1 > /tmp/c/$n.txt 2>&1; rc=$?
  echo "$n rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 /tmp/c/$n.txt | cut -c1-100)"
}
export -f one; export S
ls bench/2026-11-29-gpu-h200-s46/unseen/*.yaml examples/*.yaml tests/fixtures/specs/*.yaml dsl/families/gated_kalmanet.yaml |
  grep -v cuda_solve_k256 | xargs -P 6 -I{} bash -c 'one {}' | sort | tee $OUT/summary.txt
timeout 100 $S check --backend cuda dsl/families/mamba2.yaml > /tmp/c/full-mamba2.txt 2>&1
echo "full mamba2 rc=$? $(tail -1 /tmp/c/full-mamba2.txt)" | tee -a $OUT/summary.txt
grep -l -E "FAIL|error" /tmp/c/*.txt | xargs -r grep -H -E "FAIL|error" | head -40 > $OUT/failures.txt
tar -cJf $OUT/logs.tar.xz -C /tmp/c .
