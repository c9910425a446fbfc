import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
iS=hdr.index("Source"); iN=hdr.index("Warp Stall Sampling (All Samples)"); iE=hdr.index("Instructions Executed")
st=[i for i,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
tot=sum(int(r[iN] or 0) for r in data)
print("instructions", len(data), "samples", tot, "inst executed", sum(int(r[iE] or 0) for r in data))
# segment: find markers: first HGMMA / BAR positions, print cumulative samples in windows of 100 instrs
seg=int(sys.argv[2]) if len(sys.argv)>2 else 150
for s in range(0,len(data),seg):
    chunk=data[s:s+seg]
    n=sum(int(r[iN] or 0) for r in chunk); e=sum(int(r[iE] or 0) for r in chunk)
    kinds={}
    for r in chunk:
        op=r[iS].split()[0] if r[iS].split() else ''
        if op.startswith('@'): op=r[iS].split()[1]
        op=op.split('.')[0]
        kinds[op]=kinds.get(op,0)+1
    top=sorted(kinds.items(),key=lambda x:-x[1])[:6]
    stalls={hdr[i]:sum(int(r[i] or 0) for r in chunk) for i in st}
    ts=sorted(stalls.items(),key=lambda x:-x[1])[:4]
    print(f"{s:5d} {100*n/tot:5.1f}% exec {e:10d} {top} {[(k[6:],v) for k,v in ts]}")
