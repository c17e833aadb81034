#!/usr/bin/env bash
# The README's first command: installs dependencies, builds Tessera and runs its main job on the
# embedded default example: the FashionMNIST MLP (examples/fashion_mnist/mlp.onnx, trained by
# examples/fashion_mnist/train.py) is compiled to x86 code and classifies the committed sample
# images, printing each predicted class name next to the true label.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh release tessera
./build/release/tools/tessera/tessera classify examples/fashion_mnist/mlp.onnx \
  --samples examples/fashion_mnist/samples.npz
