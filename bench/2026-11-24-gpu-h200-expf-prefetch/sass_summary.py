# the SASS summaries of calls 1-2: python3 sass_summary.py X-sass.csv (ncu --page source --csv --print-source sass)
import csv, sys, collections, re
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
ix = {n: i for i, n in enumerate(h)}
stalls = [n for n in h if n.startswith('stall_') and 'Not Issued' not in n]
tot = collections.Counter(); byop = collections.Counter(); n_by = collections.Counter(); total = 0
inst = collections.Counter()
for r in data:
    s = r[ix['Source']].strip()
    op = re.sub(r'^@!?U?P\w+\s+', '', s).split(' ')[0]
    opb = op.split('.')[0]
    smp = int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
    total += smp; byop[opb] += smp
    inst[opb] += int(r[ix['Instructions Executed']] or 0)
    for n in stalls: tot[n] += int(r[ix[n]] or 0)
print('samples', total)
print('stalls:', ', '.join('%s %.1f%%' % (n[6:], 100 * v / total) for n, v in tot.most_common(10)))
print('by op (samples%, executed):')
for op, v in byop.most_common(22): print('  %-10s %5.1f%%  %d' % (op, 100 * v / total, inst[op]))
ti = sum(inst.values()); print('executed total', ti)
for op, v in inst.most_common(15): print('  exec %-10s %5.1f%%' % (op, 100 * v / ti))
