#!/usr/bin/env bash
# The main job on the CPU: install, build, then for the built-in families
# check generated/ is current, compare every kernel with the fp64 oracle,
# and measure CPU throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/ssmc gen --check
build/ssmc check dsl/families/*.yaml
build/ssmc bench dsl/families/*.yaml --reps 3
