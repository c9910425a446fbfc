#!/bin/bash
# session 45 call 3 (77af9b4): where GLA's and KDA's bf16 backward spend their time, B8 T4096 H16: every kernel of one
# forward + backward under ncu (duration only), then KDA's bprep, bval, bgrad and bstate with line info (source
# counters, warp states), one launch each. Everything into one tar, written as it grows.
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d) SSMC_NVRTC_LINEINFO=1
S=$PWD/.gpu/ssmc
R=/tmp/r; mkdir -p $R /tmp/p
pack() { tar -cJf $OUT/call3.tar.xz -C $R . ; }
for f in gla kda; do
  timeout 150 ncu --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda --dtype bf16 --rows fwd+bwd-saved --reps 1 \
    --B 8 --T 4096 --H 16 dsl/families/$f.yaml > $R/$f-durations.csv 2> $R/$f-durations.err
  echo "$f rc=$?"
  python3 - $R/$f-durations.csv <<'PY' | tee $R/$f-durations.txt
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki, vi = h.index('Kernel Name'), h.index('Metric Value')
d = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split('_bf16_')[-1].split('(')[0]
    d.setdefault(k, []).append(float(r[vi].replace(',', '')) / 1e6)
for k, v in d.items(): print(f"{k:16s} n={len(v):3d} last={v[-1]:8.3f} ms median={sorted(v)[len(v)//2]:8.3f} ms")
PY
  pack
done
GS=generated/kda/ssmc_kda_30c6d768_k128v128_c64_bk64bv64_bf16.cu
for k in bprep bval bgrad bstate; do
  timeout 100 ncu -k "regex:_${k}$" --launch-count 1 --section SpeedOfLight --section SourceCounters --section WarpStateStats --section Occupancy --section LaunchStats --import-source no -f -o /tmp/p/$k $S bench --backend cuda --dtype bf16 --rows bwd-saved --reps 1 --B 8 --T 4096 --H 16 dsl/families/kda.yaml > /tmp/p/$k.log 2>&1
  echo "$k ncu rc=$?"
  ncu -i /tmp/p/$k.ncu-rep --page details > $R/kda-$k-details.txt 2>&1
  ncu -i /tmp/p/$k.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz > $R/kda-$k-cudasass.csv.xz
  grep -E "Duration|Registers Per|Block Size|Achieved Occ|Issue Slots Busy" $R/kda-$k-details.txt | head -6
  pack
done
