#!/bin/bash
# s58 call 3: the tree (b835e2d: BS2 and the backward's own narrow pick) against the s57 templates (tpl-base, cbf5b33)
# with GDN / DeltaNet bf16 at B8 ... B1; Mamba-2 bf16 B8 with bscan in three or four blocks an SM (tpl-q3, tpl-q4);
# ncu of bscan; checks.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
b() { # variant spec B T
  t=""; [ $1 != tree ] && t="--templates .gpu/tpl-$1"
  timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$2.yaml --B $3 --T $4 --H 16 \
    --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$1 $2 B$3 /" | tee -a $OUT/ab.txt
}
for v in tree base tree base; do b $v gated_deltanet 8 4096; b $v gated_deltanet 2 16384; done
for v in tree base; do b $v gated_deltanet 4 8192; b $v gated_deltanet 1 32768; b $v deltanet 8 4096; b $v deltanet 2 16384; done
for v in tree q3 q4 tree q3 q4; do b $v mamba2 8 4096; done
for v in tree q3 q4; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 90 ncu --clock-control none -k regex:bscan --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
    --dtype bf16 --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/mamba2.yaml $t > /tmp/g.csv 2>/tmp/g.err
  echo "== $v Mamba-2 B8 bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe >> $OUT/durations.txt
done
for f in "tree tests/fixtures/specs/emu_split_delta.yaml" "tree dsl/families/gated_deltanet.yaml" "tree dsl/families/deltanet.yaml" "q4 dsl/families/mamba2.yaml" "q3 dsl/families/mamba2.yaml"; do set -- $f
  t=""; [ $1 != tree ] && t="--templates .gpu/tpl-$1"
  timeout 150 .gpu/ssmc check --backend cuda --quick $2 $t > /tmp/q.txt 2>&1
  echo "$1 quick $2 rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
cat $OUT/durations.txt
