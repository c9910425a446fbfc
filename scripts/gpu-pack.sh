#!/usr/bin/env bash
# Prepares a GPU run from this machine: builds ssmc without the in-process C
# compiler (the GPU machine has no LLVM 16 and no network) into build-gpu/ and
# puts the binary and the shared libraries it needs into .gpu/ (ignored),
# which scripts/gpu.sh runs there. CUDA needs nothing at build time: the
# driver and NVRTC are opened with dlopen on the GPU machine.
# Usage: scripts/gpu-pack.sh [REV...]: each REV's templates also go into .gpu/tpl-<name>/ (name: the
# short commit), which `scripts/gpu.sh ab` times beside the working tree's in the same call.
# The binary embeds the working tree's templates as they are when it is built: after editing them, pack again
# (or pass --templates), else the GPU machine runs the templates of the last pack.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-gpu -DSSMC_JIT=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-gpu --target ssmc -j"$(nproc)"
rm -rf .gpu && mkdir -p .gpu
cp build-gpu/ssmc .gpu/
# every shared library it links beyond the C/C++ runtime (libyaml, Lua, jansson, OpenBLAS, PCRE2, ...)
ldd build-gpu/ssmc | awk '/=>/ {print $1, $3}' | while read -r name path; do
  case "$name" in libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libpthread*|libdl.so*|librt.so*) continue ;; esac
  cp -L "$path" .gpu/
done
# template variants for the ab phase: the templates of each REV, read by ssmc --templates
for rev in "$@"; do
  name=$(git rev-parse --short "$rev^{commit}")
  mkdir -p ".gpu/tpl-$name"
  git archive "$name" templates | tar -x -C ".gpu/tpl-$name" --strip-components=1
done
# the anchor scripts (../shared does not travel with the checkout; .anchors is ignored: carry it, with .fla/.mamba/.hmf)
if [ -d ../shared/anchors ]; then rm -rf .anchors && mkdir -p .anchors && cp ../shared/anchors/*.py .anchors/; fi
# the same, compressed (~6 MB of ~43): carried instead of .gpu it leaves room for the anchors' code (.fla) beside
# the tracked tree in what one call carries; scripts/gpu.sh unpacks it where .gpu is missing
rm -rf .gpu-pack && mkdir -p .gpu-pack && tar -cJf .gpu-pack/gpu.tar.xz .gpu
echo "packed .gpu/ ($(du -sh .gpu | cut -f1); .gpu-pack/gpu.tar.xz $(du -sh .gpu-pack | cut -f1)); on the GPU machine: scripts/gpu.sh (carry .gpu or .gpu-pack)"
