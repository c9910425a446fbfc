#!/bin/bash
# s57 call 3: bgrad after its loop — BG3's three tile products in one loop over k (tpl-p), and with it the per-token
# loop's keys unrolled (tree) — against 8fedec7's templates (tpl-base); GDN B8 / B1, DeltaNet B8, Mamba-2 B8 bf16;
# ncu stage times; checks; compute-sanitizer on bgrad.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet" "8 4096 mamba2"; do set -- $sh
  for v in tree p base tree p base; do
    [ $3 = mamba2 ] && [ $v = p ] && continue
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
for sp in gated_deltanet mamba2; do for v in tree p base; do
  [ $sp = mamba2 ] && [ $v = p ] && continue
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 60 ncu --clock-control none -k regex:bgrad --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
    --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$sp.yaml $t > /tmp/g.csv 2>/tmp/g.err
  echo "== $v $sp B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done; done
for f in tests/fixtures/specs/emu_bgw_delta.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/mamba2.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 120 compute-sanitizer --tool racecheck --kernel-name kns=bgrad --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_bgw_delta.yaml $t > /tmp/m.txt 2>&1
  echo "racecheck bgrad emu_bgw_delta $v rc=$? $(grep -E 'RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done
timeout 120 compute-sanitizer --tool memcheck --kernel-name kns=bgrad --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/emu_bgw_delta.yaml > /tmp/m.txt 2>&1
echo "memcheck bgrad emu_bgw_delta rc=$? $(grep -E 'ERROR SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
