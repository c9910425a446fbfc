#!/bin/bash
# s57 call 1 (diagnostic): where bgrad (GDN B8 T4096 H16 bf16) and bstate_n (B1 T32768) stall, per SASS
# instruction (ncu SourceCounters: warp-state samples), and the stage times.
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$PWD/.gpu/cache
G=dsl/families/gated_deltanet.yaml
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
for sh in "8 4096 bgrad" "1 32768 bstate_n"; do set -- $sh
  timeout 200 ncu --clock-control none -k regex:"_$3\$" --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats \
    --section SchedulerStats --section Occupancy -o /tmp/r_$3 .gpu/ssmc bench --backend cuda --dtype bf16 --rows bwd-saved --reps 1 \
    --B $1 --T $2 --H 16 $G > $OUT/ncu_$3.log 2>&1
  ncu -i /tmp/r_$3.ncu-rep --page source --csv --print-source sass > $OUT/src_$3.csv 2>>$OUT/ncu_$3.log
  ncu -i /tmp/r_$3.ncu-rep --page details --csv > $OUT/details_$3.csv 2>>$OUT/ncu_$3.log
done
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv .gpu/ssmc bench --backend cuda \
  --dtype bf16 --rows fwd+bwd-saved --reps 1 --B 8 --T 4096 --H 16 $G > /tmp/g.csv 2>/tmp/g.err
python3 bench/ncu_durations.py /tmp/g.csv | grep -v probe > $OUT/durations.txt
cuobjdump -sass .gpu/cache/*.cubin > /dev/null 2>&1; ls -la /tmp/*.ncu-rep >> $OUT/ncu_bgrad.log
