#!/usr/bin/env bash
# Installs every Debian package Tessera needs to build and test. Idempotent: packages already present
# are skipped, so running it twice costs only a dpkg query.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libdlpack-dev zlib1g-dev
  clang-19 libclang-rt-19-dev clang-format-19 llvm-19-tools
  python3 python3-numpy
  llvm-19-dev libzstd-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libopenblas-dev libopenblas0-pthread libdnnl-dev
  dataset-fashion-mnist
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
