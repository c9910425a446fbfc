#!/bin/bash
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc; O=$OUT/r2; mkdir -p $O
G=dsl/families/gated_kalmanet.yaml
nvidia-smi -L > $O/env.txt
( time timeout 200 $S check --backend cuda --quick $G ) > $O/check-gka.txt 2>&1; tail -4 $O/check-gka.txt | head -1
for f in mamba2 gated_deltanet gla kda deltanet; do ( timeout 60 $S check --backend cuda --quick --no-bwd dsl/families/$f.yaml ) > $O/check-$f.txt 2>&1; tail -1 $O/check-$f.txt; done
( timeout 60 $S check --backend cuda --quick --no-bwd examples/my_ssm.yaml ) > $O/check-my_ssm.txt 2>&1; tail -1 $O/check-my_ssm.txt
( timeout 150 compute-sanitizer --tool racecheck $S check --backend cuda --quick --no-bwd $G ) > $O/race-gka.txt 2>&1; tail -3 $O/race-gka.txt
( timeout 120 compute-sanitizer --tool memcheck $S check --backend cuda --quick --no-bwd $G ) > $O/mem-gka.txt 2>&1; tail -3 $O/mem-gka.txt
