# top.py CSV.xz N: the N source lines of an ncu source page (--print-source cuda,sass) with the most warp-state samples, and
# their top three stall reasons (s52 call 4)
import csv,sys,lzma,collections
rows=list(csv.reader(lzma.open(sys.argv[1],'rt')))
hdr=rows[2]; iS=hdr.index("Warp Stall Sampling (All Samples)")
st=[i for i,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
agg=collections.defaultdict(lambda:[0,[0]*len(st),""]); line=None; src={}
for r in rows[3:]:
    if r[0]!="":
        line=int(r[0]); src[line]=r[1]; continue
    if not r[2].startswith("0x"): continue
    a=agg[line]; a[0]+=int(r[iS] or 0); a[1]=[x+int(r[i] or 0) for x,i in zip(a[1],st)]
tot=sum(a[0] for a in agg.values())
print("total samples",tot)
for l,(s,v,_) in sorted(agg.items(),key=lambda x:-x[1][0])[:int(sys.argv[2])]:
    top=sorted(zip(v,[hdr[i][6:] for i in st]),reverse=True)[:3]
    print(f"{l:6} {100*s/tot:5.1f}% {' '.join(f'{n}={100*x/max(s,1):.0f}%' for x,n in top):45} {src.get(l,'')[:110].strip()}")
