#!/bin/bash
# session 25 call 4 (the tree: tile_cp's per-thread column of pieces): GDN check (bf16); GDN B1 T32768
# H16 and B8 T4096 H16, the tree against 3477185's templates (call 2's) and 8307f8a's (session 24's last);
# fla's chunk_gated_delta_rule in the same call (fla_gdn.py)
D=bench/2026-11-25-gpu-h200-cpasync
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader | tee $OUT/env.txt
run() { # round shape spec variants
  for v in $4; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 120 $S bench --backend cuda --dtype bf16 "${t[@]}" $3 $2 --H 16 --decode 1 --reps 10 2>&1 | grep -E " (fwd[-a-z0-9+]*|bwd[-a-z]*) " | sed "s/^/round$1 $(basename $v) /" | tee -a $OUT/bench.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
for f in gated_deltanet; do
  timeout 150 $S check --backend cuda --quick dsl/families/$f.yaml > $OUT/check-$f.txt 2>&1
  echo "check $f rc=$?"; grep "^check:" $OUT/check-$f.txt; grep FAIL $OUT/check-$f.txt | head -3
done
run 1 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-3477185 .gpu/tpl-8307f8a"
run 1 "--B 8 --T 4096" dsl/families/gated_deltanet.yaml "tree .gpu/tpl-8307f8a"
PYTHONPATH=.fla timeout 150 python3 $D/fla_gdn.py 8,4096,16,128 1,32768,16,128 2>&1 | tee $OUT/fla.txt | tail -3
run 2 "--B 1 --T 32768" dsl/families/gated_deltanet.yaml ".gpu/tpl-8307f8a tree"
