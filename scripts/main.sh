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
# A small Hybrid model (Qwen3-Next-shaped, random weights, tests/fixtures) on the CPU.
build/ssmc model show tests/fixtures/qwen3_next
build/ssmc run tests/fixtures/qwen3_next --prompt "Hybrid models are" --max-new 16
