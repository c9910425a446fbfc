#!/usr/bin/env bash
# Installs, builds and runs every test (the Check suites, then gen --check).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export SSMC_CACHE_DIR="${SSMC_CACHE_DIR:-$(mktemp -d)}"
build/tests/ssmc_tests
build/ssmc gen --check
