#!/usr/bin/env bash
# Configures and builds ssmc into build/ (binary: build/ssmc).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
