#!/bin/bash
# call 4: the tree against d4384bd and against the tree without the accumulators' scaling (.gpu/tpl-noscale: the
# post-loop rows_scale / pair_decay passes, b still before the loop, k / q~ still the producer's); the tree's bgrad phases
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
for r in 1 2; do for v in .gpu/tpl-d4384bd new .gpu/tpl-noscale; do
  t=(); [ $v = new ] || t=(--templates $v)
  timeout 60 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/gated_deltanet.yaml --B 8 --T 4096 --H 16 \
    --rows bwd-saved --reps 10 2>&1 | grep -E " bwd-saved |rror" |
    sed "s|^|round$r $v gated_deltanet |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7, $9}'
done; done
export SSMC_NVRTC_LINEINFO=1
timeout 200 ncu -k "regex:_bgrad$" --launch-count 1 --set full --import-source no -f -o /tmp/gb $S bench --backend cuda \
  --dtype bf16 --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/gb.log 2>&1
echo "ncu rc=$?"
ncu -i /tmp/gb.ncu-rep --page details > $OUT/gbgrad-details.txt 2>&1
grep -E "Duration|Registers Per" $OUT/gbgrad-details.txt | head -3
ncu -i /tmp/gb.ncu-rep --page source --csv --print-source cuda,sass > /tmp/gb.csv 2>&1
python3 .gpu/phase.py /tmp/gb.csv 3302 3687 3302-3387,3388-3462,3463-3472,3473-3488,3489-3492,3493-3499,3500-3515,3516-3519,3520-3526,3527-3543,3544-3546,3547-3553,3554-3612,3613-3632,3633-3641,3642-3687 | tee $OUT/bgrad-phases.txt
xz -c /tmp/gb.csv > $OUT/gbgrad-cudasass.csv.xz
