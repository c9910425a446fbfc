#!/bin/bash
# Session 48, call 5 (5d438e4): fla's chunk_simple_gla and chunk_gated_delta_rule forward + backward (fla-core 0.6.0
# carried as a wheel in .whl; fla_fb.py) and ssmc's Mamba-2 and GDN fwd+bwd-saved, B8 T4096 H16 bf16, same call.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for f in mamba2 gated_deltanet; do
  timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --rows fwd+bwd-saved --reps 10 2>&1 |
    grep -E "fwd\+bwd-saved |rror" | tee -a $OUT/ssmc.txt
done
timeout 150 python3 bench/2026-11-29-gpu-h200-s48/call5/fla_fb.py > $OUT/fla.jsonl 2> /tmp/fla.err; echo "fla rc=$?"; tail -2 /tmp/fla.err
cat $OUT/fla.jsonl
for f in mamba2; do
  timeout 60 $S bench --backend cuda --dtype bf16 dsl/families/$f.yaml --B 8 --T 4096 --H 16 --rows fwd+bwd-saved --reps 10 2>&1 |
    grep -E "fwd\+bwd-saved |rror" | tee -a $OUT/ssmc.txt
done
