# ncu SASS source counters (ncu -i X.ncu-rep --page source --csv --print-source sass) summed over windows of W
# instructions, with the most frequent opcodes of each window: python3 windows.py CSV [W]
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]; ix={h:i for i,h in enumerate(hdr)}
W=int(sys.argv[2]) if len(sys.argv)>2 else 100
T=sum(int(r[ix['Warp Stall Sampling (All Samples)']] or 0) for r in data if len(r)>=len(hdr))
acc={}
for i,r in enumerate(data):
    if len(r)<len(hdr): continue
    n=int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
    w=i//W; a=acc.setdefault(w,[0,{}])
    a[0]+=n
    op=r[ix['Source']].strip().split()
    op=[o for o in op if not o.startswith('@')][:1]
    if op: a[1][op[0].split('.')[0]]=a[1].get(op[0].split('.')[0],0)+1
for w,(n,ops) in sorted(acc.items()):
    top=sorted(ops.items(),key=lambda x:-x[1])[:6]
    print(f'{w*W:5d}-{w*W+W-1:5d} {100*n/T:5.1f}%  '+' '.join(f'{k}:{v}' for k,v in top))
