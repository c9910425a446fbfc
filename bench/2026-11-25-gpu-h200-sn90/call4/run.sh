#!/bin/bash
# session 26 call 4: racecheck's hazards in bgrad at K = 128, V = 32, chunk 64 (tests/fixtures/specs/emu_sn90_delta.yaml;
# call 2 found 148, every one in bgrad, both dtypes), each hazard's SASS offset mapped to the generated module's line
# (nvdisasm -g of the cached cubin)
tar -xJf .gpu-pack/gpu.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu SSMC_CACHE_DIR=$(mktemp -d)
S=.gpu/ssmc
timeout 200 compute-sanitizer --tool racecheck --print-limit 400 $S check --backend cuda --quick --no-bwd tests/fixtures/specs/emu_sn90_delta.yaml > $OUT/racecheck-fwd.txt 2>&1
echo "racecheck fwd rc=$?"; tail -1 $OUT/racecheck-fwd.txt
timeout 250 compute-sanitizer --tool racecheck --print-limit 400 $S check --backend cuda --quick tests/fixtures/specs/emu_sn90_delta.yaml > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -1 $OUT/racecheck.txt
mkdir -p $OUT/sass
for c in $SSMC_CACHE_DIR/*.cubin; do nvdisasm -g -c $c > $OUT/sass/$(basename $c).sass 2>/dev/null; done
python3 - $OUT/racecheck.txt $OUT/sass <<'PY' | tee $OUT/hazards.txt
import re,sys,glob,collections
rc=open(sys.argv[1]).read()
pairs=re.findall(r'(Write|Read) access at (\w+)\+0x([0-9a-f]+)',rc)
# SASS: per function, offset -> line
lines={}
for f in glob.glob(sys.argv[2]+'/*.sass'):
  fn=None; cur=None
  for l in open(f):
    m=re.match(r'\s*\.text\.(\w+):',l) or re.match(r'\s*\.section\s+\.text\.(\w+)',l)
    if m: fn=m.group(1); cur=None; continue
    m=re.search(r'## File "([^"]+)", line (\d+)',l) or re.search(r'//## File "([^"]+)", line (\d+)',l)
    if m: cur=int(m.group(2)); continue
    m=re.search(r'/\*([0-9a-f]{4,})\*/',l)
    if m and fn: lines.setdefault(fn,{})[int(m.group(1),16)]=(cur,l.strip()[:90])
out=collections.Counter()
for kind,fn,off in pairs:
  d=lines.get(fn,{}); o=int(off,16)
  out[(fn.split('_')[-1], kind, off, d.get(o,(None,''))[0], d.get(o,(None,''))[1])]+=1
for k,v in sorted(out.items()): print(v, *k)
PY
(cd $OUT && tar -czf sass.tar.gz sass && rm -rf sass)
