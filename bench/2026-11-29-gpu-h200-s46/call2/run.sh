#!/bin/bash
# session 46 call 2: programmatic dependent launch (every stage waits for the grid before it first, then lets the next
# launch; the runtime launches with the attribute on sm_90): the same binary and templates with SSMC_PDL=0 (plain
# launches) and 1, interleaved, two rounds; fla's chunk_simple_gla forward at the split shapes in the same call; then
# the quick checks of Mamba-2 and GDN with it on.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
D=bench/2026-11-29-gpu-h200-s46/call2
gcc -I/usr/local/cuda/include -o /tmp/layout $D/layout.c && /tmp/layout | tee $OUT/env.txt
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee -a $OUT/env.txt
b() { # pdl spec B T rows
  SSMC_PDL=$1 timeout 150 $S bench --backend cuda --dtype bf16 dsl/families/$2.yaml --B $3 --T $4 --H 16 --rows $5 --reps 10 2>&1 |
    grep -E "^# device| fwd| bwd|rror" | sed "s|^|r$r pdl$1 |" >> $OUT/ab.txt
}
for r in 1 2; do
  for p in 0 1; do b $p mamba2 1 32768 fwd-split; b $p mamba2 2 16384 fwd-split; b $p gated_deltanet 1 32768 fwd-split; done
  for p in 0 1; do b $p mamba2 8 4096 fwd-fused90; b $p gated_deltanet 8 4096 fwd-fused90,bwd-saved,fwd+bwd-saved; done
  grep -v "^r.* # device" $OUT/ab.txt | grep "^r$r " | awk '{print $1, $2, $3, $4, $5, $6, $8}'
done
grep "# device" $OUT/ab.txt | head -2
timeout 100 python3 bench/2026-11-25-gpu-h200-hb/fla_sgla.py fwd 1,32768,16,128 2,16384,16,128 8,4096,16,128 | tee $OUT/fla.txt
for f in mamba2 gated_deltanet; do
  timeout 150 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/check-$f.txt)"
done
