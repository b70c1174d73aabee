#!/usr/bin/env bash
# Installs everything Hola needs on a fresh Debian 12 machine. Idempotent: installs only what is
# missing. The CUDA toolkit is optional (GPU kernels are built when nvcc is found).
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  python3 python3-matplotlib python3-numpy clang-format flake8 black
  petsc-dev openmpi-bin trilinos-all-dev libptscotch-dev libhypre-dev libgraphblas-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# nvcc is not on PATH in every shell: look in the usual place.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA found in /usr/local/cuda (add /usr/local/cuda/bin to PATH)"
fi
