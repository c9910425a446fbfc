#!/bin/bash
# Session 49, call 1: T's rows kept (WS_T: prep's keep form and fprep store T = (I - NAKK)^-1, the inverse's
# products MM_TF3), bval reads T instead of forming it again ("tree"); .gpu/tpl-<HEAD> the session start's templates.
# GDN bf16 B8 T4096 H16 bwd, bwd-saved, fwd+bwd-saved, two rounds interleaved; DeltaNet and KDA fwd+bwd-saved, one
# round; ncu stage durations of GDN's fwd+bwd-saved, both forms.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=$PWD/.gpu/ssmc
B=$(ls -d .gpu/tpl-* | head -1)
ab() { # round spec rows reps
  for v in tree $B; do
    t=(); [ $v = tree ] || t=(--templates $v)
    timeout 90 $S bench --backend cuda --dtype bf16 "${t[@]}" dsl/families/$2.yaml --B 8 --T 4096 --H 16 \
      --rows $3 --reps $4 2>&1 | grep -E " bwd | bwd-saved | fwd\+bwd-saved |rror" |
      sed "s|^|round$1 $v |" | tee -a $OUT/ab.txt | awk '{print $1, $2, $4, $5, $6, $8}'
  done
}
for r in 1 2; do ab $r gated_deltanet bwd,bwd-saved,fwd+bwd-saved 10; done
ab 1 deltanet fwd+bwd-saved 5
ab 1 kda fwd+bwd-saved 5
for v in tree $B; do
  t=(); [ $v = tree ] || t=(--templates $v)
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
    --dtype bf16 "${t[@]}" --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/gated_deltanet.yaml > /tmp/g.csv 2>/tmp/g.err
  echo "== $v" >> $OUT/durations.txt
  python3 bench/ncu_durations.py /tmp/g.csv | tee -a $OUT/durations.txt
done
