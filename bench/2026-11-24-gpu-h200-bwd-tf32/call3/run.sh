#!/bin/bash
# call 3: decode with warp-owned columns (no block barrier) vs base, GDN and Mamba-2, bf16, B1 and B512 H16
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
for rep in 1 2 3; do
  for v in base tree B D; do
    t=(); case $v in base) t=(--templates .gpu/tpl-2565e1c);; B|D) t=(--templates .gpu/tpl-$v);; esac
    for f in gated_deltanet mamba2; do
      timeout 100 $S bench "${t[@]}" --backend cuda --dtype bf16 --no-bwd --decode 1,8,32,128,512 --reps 100 dsl/families/$f.yaml --B 1 --T 64 --H 16 > $OUT/dec-$f-$v-$rep.txt 2>&1
      echo "$f $v $rep: $(grep -E ' decode' $OUT/dec-$f-$v-$rep.txt | sed -E 's/^[^ ]+ +decode +//; s/ +[0-9.]+ TFLOP.s +[0-9]+ GB.s//; s/ of floor \([0-9.]+ ms\)//; s/\[[^]]*\]//; s/ +/ /g' | tr '\n' '|')"
    done
  done
done
for v in tree B D; do
  t=(); case $v in B|D) t=(--templates .gpu/tpl-$v);; esac
  for f in gated_deltanet mamba2; do
    timeout 100 $S check "${t[@]}" --backend cuda --quick --no-bwd dsl/families/$f.yaml > $OUT/check-$f-$v.txt 2>&1
    echo "check $f $v: $(tail -1 $OUT/check-$f-$v.txt)"; grep FAIL $OUT/check-$f-$v.txt | head -3
  done
done
