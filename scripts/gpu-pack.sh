#!/usr/bin/env bash
# Prepares a GPU run from this machine: builds ssmc without the in-process C
# compiler (the GPU machine has no LLVM 16 and no network) into build-gpu/ and
# puts the binary and the two shared libraries it needs into .gpu/ (ignored),
# which scripts/gpu.sh runs there. CUDA needs nothing at build time: the
# driver and NVRTC are opened with dlopen on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-gpu -DSSMC_JIT=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-gpu --target ssmc -j"$(nproc)"
rm -rf .gpu && mkdir -p .gpu
cp build-gpu/ssmc .gpu/
for l in libyaml-0.so.2 liblua5.4.so.0; do cp -L "$(ldconfig -p | awk -v l=$l '$1 == l {print $NF; exit}')" .gpu/; done
echo "packed .gpu/ ($(du -sh .gpu | cut -f1)); on the GPU machine: scripts/gpu.sh (carry .gpu)"
