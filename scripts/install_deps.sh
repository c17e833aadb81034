#!/usr/bin/env bash
# Installs every Debian package Tessera needs to build and test. Idempotent: packages already present
# are skipped, so running it twice costs only a dpkg query.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libdlpack-dev zlib1g-dev
  clang-19 libclang-rt-19-dev clang-format-19 llvm-19-tools
  python3 python3-numpy python3-onnx libonnx-testdata
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  llvm-19-dev libzstd-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libopenblas-dev libopenblas0-pthread libdnnl-dev
  libxgboost-dev
  dataset-fashion-mnist
)

bash "$(dirname "$0")/apt_install.sh" install_deps "${packages[@]}"
