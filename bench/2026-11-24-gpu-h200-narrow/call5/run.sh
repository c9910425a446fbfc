#!/bin/bash
# session 17 call 5: decode_large in 2 parts fails on the GPU (state rows), passes in emulation: one copy group (p2s) vs two (p2); sanitizers
# .gpu/tpld/p2: templates with `DL_PARTS = 2` (the plain_decode of call 4, not kept); p2s: the same with every part's wait cp_async_wait<0>
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for v in p2s p2; do
  timeout 120 $S check --templates .gpu/tpld/$v --backend cuda --quick --no-bwd dsl/families/gated_deltanet.yaml > $OUT/check-$v.txt 2>&1
  echo "check $v rc=$? fail=$(grep -c 'FAIL\|error' $OUT/check-$v.txt)"; grep "decode-large state" $OUT/check-$v.txt | head -3
done
timeout 200 compute-sanitizer --tool racecheck $S bench --templates .gpu/tpld/p2 --backend cuda --dtype bf16 --decode 4 --reps 1 --no-bwd dsl/families/gated_deltanet.yaml --B 1 --T 64 --H 2 2>&1 | grep -E "RACECHECK|hazard|Error|error" | head -8
timeout 200 compute-sanitizer --tool memcheck $S bench --templates .gpu/tpld/p2 --backend cuda --dtype bf16 --decode 4 --reps 1 --no-bwd dsl/families/gated_deltanet.yaml --B 1 --T 64 --H 2 2>&1 | grep -E "ERROR SUMMARY|Invalid|error" | head -8
