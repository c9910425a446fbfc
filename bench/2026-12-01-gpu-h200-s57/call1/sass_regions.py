# Sums ncu's per-instruction warp samples (the source page, --print-source sass --csv) over ranges of SASS lines:
# python3 sass_regions.py SRC.csv CUT0,CUT1,... prints each [CUTi, CUTi+1): samples, share, warp instructions
# executed and the five largest stall reasons. (bench/2026-12-01-gpu-h200-s57 call 1)
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; data = rows[2:]
ix = {h:i for i,h in enumerate(hdr)}
st = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
cuts = [int(x) for x in sys.argv[2].split(',')]
tot = sum(int(r[ix['Warp Stall Sampling (All Samples)']] or 0) for r in data)
for a, b in zip(cuts[:-1], cuts[1:]):
    seg = data[a:b]
    n = sum(int(r[ix['Warp Stall Sampling (All Samples)']] or 0) for r in seg)
    ex = sum(int(r[ix['Instructions Executed']] or 0) for r in seg)
    agg = sorted(((sum(int(r[ix[s]] or 0) for r in seg), s[6:]) for s in st), reverse=True)[:5]
    print(f"[{a},{b}) {data[a][ix['Source']].strip()[:30]:30s} samples {n:7d} {100*n/tot:5.1f}%  warp-instr {ex:10d}  {agg}")
