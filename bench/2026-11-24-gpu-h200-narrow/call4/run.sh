#!/bin/bash
# session 17 call 4: decode_large with an erase in 1 / 2 / 4 column parts (one cp.async group each), GDN and DeltaNet B512 H16, three rounds
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for r in 1 2 3; do
  for v in base p2 p4; do
    T=""; [ $v != base ] && T="--templates .gpu/tpld/$v"
    for f in gated_deltanet deltanet; do
      echo "r$r $v $f $(timeout 100 $S bench $T --backend cuda --dtype bf16 --decode 512 --no-bwd dsl/families/$f.yaml --B 1 --T 64 --H 16 2>&1 | grep -E 'decode.*large|error' | awk '{print $6, $7, $12, $13, $14}')"
    done
  done
done
for v in p2 p4; do
  timeout 200 $S check --templates .gpu/tpld/$v --backend cuda --quick dsl/families/gated_deltanet.yaml > $OUT/check-gdn-$v.txt 2>&1
  echo "check gdn $v rc=$? rows=$(grep -c 'PASS\|FAIL' $OUT/check-gdn-$v.txt) fail=$(grep -c 'FAIL\|error' $OUT/check-gdn-$v.txt)"
done
