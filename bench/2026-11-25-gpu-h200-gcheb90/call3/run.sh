#!/bin/bash
# session 31 call 3: the solve's kept forward (saved_lead: the backward's bhdelta[90], bhscan and xsolve[90] into its
# workspace, then prep, scan and out; the backward after it skips those three), against 70aa8d5's templates (call 2's)
# in the same call: GKA forward + backward at B8 T4096 and B1 T32768 H16 (bwd-saved rows); checks with the backward
# (their kept runs), memcheck
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
base=.gpu/tpl-70aa8d5
G=dsl/families/gated_kalmanet.yaml
F=tests/fixtures/specs
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
timeout 200 $S check --backend cuda --quick $G > $OUT/check-gka-bwd.txt 2>&1
echo "check-bwd rc=$? $(grep '^check:' $OUT/check-gka-bwd.txt)"; grep FAIL $OUT/check-gka-bwd.txt | head -3; grep "bf16 T=4096 .*bwd-saved d\(q\|k\|g\|H0\) " $OUT/check-gka-bwd.txt | head -8
for f in emu_solve_bf cuda_solve_delta; do
  timeout 120 $S check --backend cuda --quick $F/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$? $(grep '^check:' $OUT/check-$f.txt)"; grep FAIL $OUT/check-$f.txt | head -3
done
timeout 90 compute-sanitizer --tool memcheck --print-limit 10 $S check --backend cuda --quick $F/emu_solve_bf.yaml > $OUT/san-memcheck.txt 2>&1
echo "memcheck rc=$? $(grep '^check:' $OUT/san-memcheck.txt) $(tail -1 $OUT/san-memcheck.txt)"
run() { # shape [templates]
  timeout 150 $S bench --backend cuda --dtype bf16 ${2:+--templates $2} $G $1 --decode 1 --reps 5 2>&1 | grep -E " (fwd|bwd|fwd\+bwd)(-[a-z0-9]+)? " | sed "s/^/round1 ${2:+base }/" | tee -a $OUT/bench.txt | awk '{print $1, $2, $3, $4, $5, $6, $7, $8, $9}' | sed 's/ssmc_gated_kalmanet_[0-9a-f]*_k128v128_c64_bk64bv64_bf16//'
}
for sh in "--B 8 --T 4096 --H 16" "--B 1 --T 32768 --H 16"; do run "$sh"; run "$sh" $base; done
cd $OUT && tar -czf logs.tgz check-*.txt san-*.txt && rm -f check-*.txt san-*.txt
