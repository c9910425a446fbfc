#!/bin/bash
# session 46 call 4 (4162b6c: the log-decay gradient floor): fourteen specs no session had run (../unseen/;
# call 3 had the first four), the new fixture bwd_delta_unscaled and the built-in GDN, `check --backend cuda --quick` on the H200 (forward variants, backward, decode against the fp64
# oracle, f32 and bf16), six at a time (NVRTC compiles on the host's cores); one summary line a spec.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
mkdir -p /tmp/c
one() {
  n=$(basename $1 .yaml); t0=$(date +%s)
  timeout 280 $S check --backend cuda --quick $1 > /tmp/c/$n.txt 2>&1; rc=$?
  echo "$n rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 /tmp/c/$n.txt | cut -c1-100)"
}
export -f one; export S
ls bench/2026-11-29-gpu-h200-s46/unseen/*.yaml tests/fixtures/specs/bwd_delta_unscaled.yaml dsl/families/gated_deltanet.yaml |
  xargs -P 6 -I{} bash -c 'one {}' | sort | tee $OUT/summary.txt
grep -l -E "FAIL|error" /tmp/c/*.txt | xargs -r grep -h -E "FAIL|error" | head -40 > $OUT/failures.txt
tar -cJf $OUT/logs.tar.xz -C /tmp/c .
# then fla's chunk_gla and chunk_kda forward + backward at B8 T4096 H16 (never timed for this project), one process
# each (fla's autotuning keys leave a second shape or op in one process with the first one's configs)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
for op in gla kda; do timeout 150 python3 bench/2026-11-29-gpu-h200-s46/call1/fla_prof.py $op >> $OUT/fla.jsonl 2>/tmp/fla-$op.err; echo "fla $op rc=$?"; done
cut -c1-400 $OUT/fla.jsonl
