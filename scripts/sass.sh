#!/usr/bin/env bash
# Developer tool (no GPU needed): the SASS of a spec's CUDA stages, as NVRTC builds them for ssmc.
# `ssmc compile` writes the cubins into a fresh cache directory; cuobjdump and nvdisasm (NVIDIA's PyPI wheels
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm, fetched once into .cache/tools/) disassemble the functions
# whose names end in _STAGE, and a summary line each says how many instructions, local-memory spills
# (STL / LDL) and wgmma (HGMMA) it has. What ptxas said of the stage (wgmma serialized, warpgroup waits
# injected) is printed from NVRTC's log too.
# Usage: scripts/sass.sh SPEC STAGE [--arch sm_90a|sm_80] [--templates DIR] [--out FILE]
#   e.g. scripts/sass.sh dsl/families/mamba2.yaml bgrad --out /tmp/bgrad.sass
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then sed -n 2,9p "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
spec=$1 stage=$2; shift 2
arch=sm_90a out= tpl=()
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    --templates) tpl=(--templates "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "scripts/sass.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -x build/ssmc ] || { echo "scripts/sass.sh: build/ssmc is missing (scripts/build.sh)" >&2; exit 2; }
tools=.cache/tools
bin=$tools/nvidia/cu13/bin
for t in cuobjdump nvdisasm; do
  if [ ! -x "$bin/$t" ]; then
    mkdir -p "$tools"
    python3 -m pip download -q --no-deps -d "$tools" "nvidia-cuda-$t"
    python3 -m zipfile -e "$tools"/nvidia_cuda_"$t"-*.whl "$tools"
    chmod +x "$bin/$t"
  fi
done
export PATH=$PWD/$bin:$PATH
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
SSMC_CACHE_DIR=$cache build/ssmc compile "$spec" --arch "$arch" "${tpl[@]}" > "$cache/report.txt" || exit 2
grep -E "_${stage} " "$cache/report.txt" || { echo "scripts/sass.sh: $spec has no stage '$stage' on $arch" >&2; exit 2; }
sass=$cache/all.sass
for c in "$cache"/*.cubin; do cuobjdump -sass "$c"; done > "$sass"
# the stage's functions: from their "Function : NAME" line to the next function's
awk -v s="_${stage}" '/Function : /{f = ($3 ~ s "$")} f' "$sass" > "$cache/stage.sass"
awk '/Function : /{if (n) print name, n, "instructions,", st, "STL,", ld, "LDL,", mm, "HGMMA"; name = $3; n = st = ld = mm = 0}
     /\/\*[0-9a-f]+\*\// {n++} / STL/ {st++} / LDL/ {ld++} /HGMMA/ {mm++}
     END {if (n) print name, n, "instructions,", st, "STL,", ld, "LDL,", mm, "HGMMA"}' "$cache/stage.sass"
grep -h -E "C75[0-9]+" "$cache"/*.log 2>/dev/null | grep -E "_${stage}'" | sed 's/^ptxas info *: //' || true
if [ -n "$out" ]; then cp "$cache/stage.sass" "$out"; echo "SASS: $out"; fi
