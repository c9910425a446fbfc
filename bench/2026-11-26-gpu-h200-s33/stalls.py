import csv,sys
f=sys.argv[1]
rows=list(csv.reader(open(f)))
hdr=rows[1]; data=rows[2:]
ix={h:i for i,h in enumerate(hdr)}
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot={s:0 for s in stalls}; T=0
recs=[]
for i,r in enumerate(data):
    if len(r)<len(hdr): continue
    n=int(r[ix['Warp Stall Sampling (All Samples)']] or 0); T+=n
    for s in stalls: tot[s]+=int(r[ix[s]] or 0)
    recs.append((n,i,r[ix['Source']].strip(),{s:int(r[ix[s]] or 0) for s in stalls}))
print('total samples',T)
for s,v in sorted(tot.items(),key=lambda x:-x[1])[:10]: print(f'{s:28s} {v:8d} {100*v/T:5.1f}%')
N=int(sys.argv[2]) if len(sys.argv)>2 else 40
for n,i,src,st in sorted(recs,reverse=True)[:N]:
    top=sorted(st.items(),key=lambda x:-x[1])[:2]
    print(f'{i:5d} {n:6d} {100*n/T:5.1f}% {src[:60]:60s} '+' '.join(f'{k[6:]}={v}' for k,v in top))
