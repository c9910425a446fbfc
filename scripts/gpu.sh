#!/usr/bin/env bash
# On a GPU machine (after scripts/gpu-pack.sh here, with .gpu carried there):
# checks every CUDA kernel of the built-in specs and examples/ against the fp64
# oracle on the edge shapes, runs compute-sanitizer (memcheck, racecheck) on
# the small shapes, prints the resource report, and writes everything under
# OUT (default bench/gpu-<date>) with the date, GPU and commit.
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SSMC_CACHE_DIR="${SSMC_CACHE_DIR:-$(mktemp -d)}"
S=.gpu/ssmc
out="${OUT:-bench/gpu-$(date +%F)}"
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
{ echo "date: $(date -u +%FT%TZ)"; echo "gpu: $gpu"; echo "commit: $(git rev-parse --short HEAD 2>/dev/null || cat .gpu/commit 2>/dev/null)";
  echo "command: scripts/gpu.sh"; } > "$out/env.txt"
cat "$out/env.txt"
rc=0
$S compile --arch sm_90a > "$out/compile.txt" 2>&1 || rc=1
specs=(dsl/families/*.yaml examples/*.yaml)
for s in "${specs[@]}"; do
  echo "== check --backend cuda $s"
  $S check --backend cuda "$s" > "$out/check-$(basename "$s" .yaml).txt" 2>&1 || rc=1
  grep -E "^check:|FAIL|error" "$out/check-$(basename "$s" .yaml).txt" | head -20
done
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    for s in dsl/families/gated_deltanet.yaml dsl/families/gated_kalmanet.yaml dsl/families/kda.yaml; do
      echo "== compute-sanitizer --tool $tool $s"
      timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick "$s" \
        > "$out/sanitizer-$tool-$(basename "$s" .yaml).txt" 2>&1 || rc=1
      tail -3 "$out/sanitizer-$tool-$(basename "$s" .yaml).txt"
    done
  done
fi
echo "gpu.sh: exit $rc; results in $out"
exit $rc
