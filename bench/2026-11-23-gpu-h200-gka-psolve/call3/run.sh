#!/bin/bash
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; O=$OUT/r3; mkdir -p $O
G=dsl/families/gated_kalmanet.yaml
( timeout 430 compute-sanitizer --tool racecheck --print-limit 20 $S check --backend cuda --quick --no-bwd $G 2>&1 | grep -vE "PASS|info" ) > $O/race-gka.txt 2>&1; tail -5 $O/race-gka.txt
