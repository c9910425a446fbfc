# per CUDA source line of a cs csv (ncu --page source --print-source cuda,sass): the line rows' samples and stalls
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[2]; data = [r for r in rows[3:] if r[0].strip()]
ix = {}
for i,h in enumerate(hdr): ix.setdefault(h, i)
S = ix['Warp Stall Sampling (All Samples)']
st = [(i,h) for i,h in enumerate(hdr) if h.startswith('stall_') and 'Not Issued' not in h]
def num(x):
    try: return int(x)
    except: return 0
tot = sum(num(r[S]) for r in data)
src = open(sys.argv[2]).read().split('\n') if len(sys.argv) > 2 else None
print("total samples", tot)
for r in sorted(data, key=lambda r: -num(r[S]))[:int(sys.argv[3]) if len(sys.argv) > 3 else 40]:
    ln = int(r[0]); c = sorted(((num(r[i]), h[6:]) for i,h in st), reverse=True)[:3]
    t = src[ln-1].strip()[:80] if src else ''
    print(f"{ln:6} {100*num(r[S])/tot:5.1f}% ex={num(r[ix['Instructions Executed']]):9d} {t:80s} {c}")
