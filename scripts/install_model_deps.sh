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

# True when package $1 is installed, or (for npm) when another package provides the command:
# NodeSource's nodejs bundles npm and conflicts with Debian's npm package.
isPresent() {
  if [ "$1" = npm ] && command -v npm >/dev/null 2>&1; then return 0; fi
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for p in "${packages[@]}"; do
  if ! isPresent "$p"; then missing+=("$p"); fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_model_deps: all ${#packages[@]} Debian packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install_model_deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime for Node. --ignore-scripts skips the package's install hook (it would try to fetch
# CUDA binaries); the CPU binaries ship inside the npm tarball.
peers=bench/peers
if [ -f "$peers/node_modules/onnxruntime-node/package.json" ]; then
  echo "install_model_deps: onnxruntime-node present in $peers/node_modules"
else
  echo "install_model_deps: npm install into $peers (onnxruntime-node, pinned in package.json)"
  (cd "$peers" && npm install --ignore-scripts --no-audit --no-fund)
fi
