import csv, re, sys, collections
dis, sass, fn, src = sys.argv[1:5]
# address -> (file line, inlined-at chain)
lines = open(dis).read().split('\n')
amap = {}
cur = None; infn = False; ln = None
for l in lines:
    if l.startswith('//--------------------- .text.'):
        infn = l.split('.text.')[1].split(' ')[0] == fn
        continue
    if not infn: continue
    m = re.search(r'//## File ".*", line (\d+)', l)
    if m: ln = int(m.group(1)); continue
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/', l)
    if m and ln is not None: amap[int(m.group(1), 16)] = ln
rows = list(csv.reader(open(sass)))
hdr = rows[1]; idx = {h: i for i, h in enumerate(hdr)}
base = int(rows[2][idx['Address']], 16)
agg = collections.defaultdict(lambda: [0, 0, 0, collections.Counter()])
tot = 0
stalls = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
for r in rows[2:]:
    try: a = int(r[idx['Address']], 16) - base
    except: continue
    s = int(r[idx['Warp Stall Sampling (All Samples)']] or 0)
    w = int(r[idx['L1 Wavefronts Shared']] or 0)
    e = int(r[idx['Instructions Executed']] or 0)
    ln = amap.get(a, -1)
    g = agg[ln]; g[0] += s; g[1] += w; g[2] += e; tot += s
    for st in stalls:
        v = int(r[idx[st]] or 0)
        if v: g[3][st[6:]] += v
srcl = open(src).read().split('\n')
print('total samples', tot)
for ln, g in sorted(agg.items(), key=lambda x: -x[1][0])[:45]:
    txt = srcl[ln - 1].strip()[:90] if 0 < ln <= len(srcl) else '?'
    top = ','.join('%s:%d' % kv for kv in g[3].most_common(3))
    print('%5d %5.1f%% wf=%8d ex=%8d %-40s %s' % (ln, 100.0 * g[0] / tot, g[1], g[2], top, txt))
