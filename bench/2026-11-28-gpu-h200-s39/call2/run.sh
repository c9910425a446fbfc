#!/bin/bash
# session 39 call 2 (64c01db, SSMC_NVRTC_LINEINFO=1): fla's GDN forward at B1 T32768 and B8 T4096 H16 (call 1 ran
# out of time before it); compute-sanitizer (memcheck, racecheck) on prep_fused alone (the K = 32 fixture); ncu's
# full set of the new prep_fused at GDN B8 T4096 H16 with SASS samples and the cubin's line table (nvdisasm -g)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=.gpu/ssmc
R=bench/2026-11-26-gpu-h200-s38 # fla_gdn_fwd.py (the call ran a byte-identical copy in this record)
G=dsl/families/gated_deltanet.yaml
F=tests/fixtures/specs
PYTHONPATH=.fla timeout 200 python3 $R/fla_gdn_fwd.py 1,32768,16,128 8,4096,16,128 > $OUT/fla.txt 2>&1; tail -2 $OUT/fla.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --kernel-regex kns=prep_fused --error-exitcode 9 $S check --backend cuda --no-bwd --quick $F/emu_f90_delta.yaml > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|comparisons" $OUT/san-$tool.txt
done
mkdir -p /tmp/p
timeout 150 ncu -k "regex:bf16_prep_fused\$" --launch-count 1 --set full --import-source no -f -o /tmp/p/pf $S bench --backend cuda --dtype bf16 --no-bwd --reps 1 --decode 1 $G --B 8 --T 4096 --H 16 > /tmp/p/pf.log 2>&1
echo "ncu rc=$?"
ncu -i /tmp/p/pf.ncu-rep --page details > /tmp/p/pf-details.txt 2>&1
ncu -i /tmp/p/pf.ncu-rep --page source --csv --print-source sass > /tmp/p/pf-sass.csv 2>&1
grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  |DRAM Through|Memory Through" /tmp/p/pf-details.txt | head -10
for c in $SSMC_CACHE_DIR/*.cubin; do nvdisasm -g -c $c > /tmp/p/dis-$(basename $c .cubin).txt 2>&1; done
cd /tmp/p && tar czf $OUT/prof.tgz pf-details.txt pf-sass.csv pf.log dis-*.txt && ls -la $OUT
