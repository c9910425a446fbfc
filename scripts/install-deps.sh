#!/usr/bin/env bash
# Installs the Debian packages ssmc builds with (idempotent; needs root or sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libyaml-dev liblua5.4-dev check llvm-16-dev libclang-cpp16-dev libclang-16-dev clang-16 libopenblas-dev libjansson-dev libpcre2-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing: ${missing[*]}"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
