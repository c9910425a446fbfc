# phase.py CSV FIRST LAST A-B,C-D,...: ncu source-page csv (--print-source cuda,sass) -> samples and top stall reasons per
# range of kernel-body lines, each SASS instruction attributed to the last body line (FIRST..LAST) before it in address order
import csv,sys,collections
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[2]; 
iS=hdr.index("Warp Stall Sampling (All Samples)")
st=[i for i,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
ins=[]; line=None
for r in rows[3:]:
    if r[0]!="": line=int(r[0]); continue
    if not r[2].startswith("0x"): continue
    ins.append((int(r[2],16),line,int(r[iS] or 0),[int(r[i] or 0) for i in st],r[3]))
ins.sort()
lo,hi=int(sys.argv[2]),int(sys.argv[3])
cur=None; agg=collections.OrderedDict()
for a,l,s,v,t in ins:
    if l is not None and lo<=l<=hi: cur=l
    key=cur
    if key not in agg: agg[key]=[0,[0]*len(st),0]
    agg[key][0]+=s; agg[key][2]+=1
    agg[key][1]=[x+y for x,y in zip(agg[key][1],v)]
tot=sum(x[0] for x in agg.values())
# ranges
rng=[tuple(map(int,x.split('-'))) for x in sys.argv[4].split(',')]
for a,b in rng:
    s=0; v=[0]*len(st)
    for k,(ss,vv,n) in agg.items():
        if k is not None and a<=k<=b: s+=ss; v=[x+y for x,y in zip(v,vv)]
    top=sorted(zip(v,[hdr[i] for i in st]),reverse=True)[:5]
    print(f"{a}-{b}: {100*s/tot:5.1f}%  "+"  ".join(f"{n[6:]}={100*x/max(s,1):.0f}%" for x,n in top))
print("none",100*agg.get(None,[0])[0]/tot)
