#!/bin/bash
# s57 call 2: bgrad's BGW stores doing the decays, masks and row scalings from the accumulators (tree) against
# 8fedec7's templates (.gpu/tpl-base); GDN B8 / B1, DeltaNet B8, Mamba-2 B8 bf16; ncu stage times; checks;
# compute-sanitizer on bgrad.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
for sh in "8 4096 gated_deltanet" "1 32768 gated_deltanet" "8 4096 deltanet" "8 4096 mamba2"; do set -- $sh
  for v in tree base tree base; do
    t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
    timeout 60 .gpu/ssmc bench --backend cuda --dtype bf16 dsl/families/$3.yaml --B $1 --T $2 --H 16 \
      --rows bwd-saved,fwd+bwd-saved --reps 5 $t 2>&1 | grep -E " bwd-saved| fwd\+bwd-saved|rror" | sed "s/^/$v /" | tee -a $OUT/ab.txt
  done
done
for sp in gated_deltanet mamba2; do for v in tree base; do
  t=""; [ $v != tree ] && t="--templates .gpu/tpl-$v"
  timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
    --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/$sp.yaml $t > /tmp/g.csv 2>/tmp/g.err
  echo "== $v $sp B8 fwd+bwd-saved" >> $OUT/durations.txt; python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe | tee -a $OUT/durations.txt
done; done
for f in tests/fixtures/specs/emu_bgw_delta.yaml tests/fixtures/specs/emu_wg_scalar.yaml dsl/families/gated_deltanet.yaml dsl/families/deltanet.yaml dsl/families/mamba2.yaml; do
  timeout 100 .gpu/ssmc check --backend cuda --quick $f > /tmp/q.txt 2>&1
  echo "quick $f rc=$? $(tail -n1 /tmp/q.txt)" | tee -a $OUT/checks.txt; grep -E "FAIL" /tmp/q.txt | head -5 >> $OUT/checks.txt
done
for f in emu_bgw_delta emu_wg_scalar; do for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --kernel-name kns=bgrad --error-exitcode 9 .gpu/ssmc check --backend cuda --quick tests/fixtures/specs/$f.yaml > /tmp/m.txt 2>&1
  echo "$tool bgrad $f rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|comparisons' /tmp/m.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
done; done
