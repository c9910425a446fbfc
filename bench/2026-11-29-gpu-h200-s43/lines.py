# ncu samples and executed instructions per line of the generated source: the csv of
# `ncu -i R.ncu-rep --page source --csv --print-source cuda,sass` (a cubin built with SSMC_NVRTC_LINEINFO=1)
# and the module's .cu (generated/ at the commit that ran). usage: lines.py CSV SRC [N]
import csv, sys
f, src = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
rows = list(csv.reader(open(f)))
h = rows[2]
si, ii = h.index('# Samples'), h.index('Instructions Executed')
agg = []
tot_s = tot_i = 0
for r in rows[3:]:
    if r and r[0] not in ('', 'File Path', 'Function Name', 'Line No'):
        s, i = int(r[si].replace(',', '') or 0), int(r[ii].replace(',', '') or 0)
        agg.append((s, i, int(r[0])))
        tot_s += s; tot_i += i
agg.sort(reverse=True)
print('total samples', tot_s, 'instructions', tot_i)
for s, i, l in agg[:int(sys.argv[3]) if len(sys.argv) > 3 else 40]:
    print('%5.1f%% %5.1f%%  %5d  %s' % (100 * s / tot_s, 100 * i / tot_i, l, lines[l - 1].strip()[:150]))
