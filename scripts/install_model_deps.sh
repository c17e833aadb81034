#!/usr/bin/env bash
# Installs what the model tests (tests/models/) and the peer benchmark (bench/peers/) need: Debian's
# PyTorch, torchvision, ONNX, NumPy, the pthread OpenBLAS and Node.js with npm, plus ONNX Runtime
# for Node (`onnxruntime-node`, from npm) into bench/peers/node_modules. Idempotent: what is
# present is skipped, so running it twice costs only a dpkg query and a directory check.
# The Python packages are Debian's, for /usr/bin/python3 (a python3 earlier on PATH may lack them).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  python3 python3-numpy python3-torch python3-torchvision python3-onnx
  libopenblas0-pthread
  nodejs npm
)

bash scripts/apt_install.sh install_model_deps "${packages[@]}"

# ONNX Runtime for Node. --ignore-scripts skips the package's install hook (it would try to fetch
# CUDA binaries); the CPU binaries ship inside the npm tarball.
peers=bench/peers
if [ -f "$peers/node_modules/onnxruntime-node/package.json" ]; then
  echo "install_model_deps: onnxruntime-node present in $peers/node_modules"
else
  echo "install_model_deps: npm install into $peers (onnxruntime-node, pinned in package.json)"
  (cd "$peers" && npm install --ignore-scripts --no-audit --no-fund)
fi
