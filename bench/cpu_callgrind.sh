#!/usr/bin/env bash
# bench tool: the deterministic progress figure of the CPU kernels: instructions
# (callgrind Ir, inclusive) of ONE chunkwise forward per kernel at T, H (default
# T=4096 H=4), one thread. Valgrind exposes no AVX-512, so the x86-64-v3 (AVX2)
# variant is what runs and is counted.
# usage: bench/cpu_callgrind.sh [FAMILY...] [-- bench args]   (run from the repo root, after scripts/build.sh)
set -euo pipefail
fams=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do fams+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#fams[@]} -eq 0 ] && fams=(mamba2 gated_deltanet deltanet gla kda gated_kalmanet)
out="$(mktemp -d)"
for f in "${fams[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$f.cg" --toggle-collect='ssmc_*_fwd' \
    build/ssmc bench "dsl/families/$f.yaml" --once --threads 1 "$@" >"$out/$f.txt" 2>"$out/$f.err" \
    || { cat "$out/$f.err" >&2; exit 1; }
  callgrind_annotate --inclusive=yes "$out/$f.cg" 2>/dev/null | grep -E ':ssmc_.*_fwd \[' |
    awk '{gsub(",", "", $1); sub(/^[^:]*:/, "", $3); printf "%-60s Ir %14.0f\n", $3, $1}'
done
rm -rf "$out"
