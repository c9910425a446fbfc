#!/bin/bash
# Prepared in session 49, not run (its budget was spent): which of bgrad's producer barriers racecheck does not take
# as ordering. Pack (workstation): scripts/gpu-pack.sh; for v in ra rb; mkdir .gpu/tpl-$v, cp templates/*.tpl there;
#   sed -i 's/          bar_arrive_na(1 + b, \${NTB or NT});/          bar_wait_na(1 + b, ${NTB or NT});/' .gpu/tpl-ra/cuda_bwd.cu.tpl
#   sed -i 's/bar_arrive_na(\${1 + NBUF} + (st - 1) % \${NBUF}, \${NTB or NT});/bar_wait_na(${1 + NBUF} + (st - 1) % ${NBUF}, ${NTB or NT});/' .gpu/tpl-rb/cuda_bwd.cu.tpl
#   then re-tar .gpu into .gpu-pack (both variants pass the emulated emu_bgw_delta, sm_90a: 270/270).
# .gpu/tpl-ra: the producer waits at each full buffer's barrier (barrier.sync) instead of arriving;
# .gpu/tpl-rb: the consumers wait at each free buffer's barrier instead of arriving. racecheck of emu_bgw_delta's bgrad.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for v in ra rb; do
  timeout 60 compute-sanitizer --tool racecheck --kernel-name kns=bgrad --error-exitcode 9 $S check --backend cuda --quick \
    --templates .gpu/tpl-$v tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/r-$v.txt 2>&1
  echo "== $v rc=$? $(grep -E 'comparisons|RACECHECK SUMMARY' /tmp/r-$v.txt | tr '\n' ' ')" | tee -a $OUT/racecheck.txt
done
