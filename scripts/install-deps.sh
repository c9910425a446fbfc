#!/usr/bin/env bash
# Installs the Debian packages ssmc builds with (idempotent; needs root or sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libyaml-dev liblua5.4-dev check llvm-16-dev libclang-cpp16-dev libclang-16-dev clang-16 libopenblas-dev libjansson-dev libpcre2-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
# NVRTC compiles the CUDA kernels (no GPU needed). Without a CUDA toolkit it
# comes from NVIDIA's PyPI wheel into /opt/ssmc-nvrtc, where ssmc looks for it.
have_nvrtc() {
  ldconfig -p | grep -q 'libnvrtc\.so' || ls /usr/local/cuda/lib64/libnvrtc.so* /opt/ssmc-nvrtc/nvidia/*/lib/libnvrtc.so* >/dev/null 2>&1
}
have_nvrtc || missing+=(python3-pip)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! have_nvrtc; then
  echo "installing NVRTC (PyPI nvidia-cuda-nvrtc) into /opt/ssmc-nvrtc"
  $SUDO python3 -m pip install -q --break-system-packages --target /opt/ssmc-nvrtc 'nvidia-cuda-nvrtc>=13,<14' ||
    $SUDO python3 -m pip install -q --target /opt/ssmc-nvrtc 'nvidia-cuda-nvrtc>=13,<14'
fi
