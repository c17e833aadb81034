#!/usr/bin/env bash
# Usage: models_test.sh TESSERA_BINARY SOURCE_DIR MODEL. End-to-end test of one real model: makes
# the ONNX file and PyTorch's reference with tests/models/make_models.py (cached; needs Debian's
# python3-torch, see scripts/install_model_deps.sh), compiles it with `tessera compile`, runs it
# once with `tessera run DIR --input ...`, and compares with compare_output.py (max abs diff within
# 1e-3 * max|ref| + 1e-4, and the same top-1).
set -euo pipefail
tessera="$1"
src="$2"
model="$3"
python=/usr/bin/python3   # Debian's, with torch; a python3 earlier on PATH may lack it
cache="${TESSERA_MODEL_CACHE:-$HOME/.cache/tessera-models}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! "$python" -c "import torch, torchvision, onnx" 2>/dev/null; then
  echo "FAIL: $python lacks torch/torchvision/onnx; run scripts/install_model_deps.sh"
  exit 1
fi
"$python" "$src/tests/models/make_models.py" --out "$cache" "$model"
inputName="$("$python" "$src/tests/models/make_models.py" --list |
  awk -v m="$model" '$1 == m { print $2 }')"

start=$(date +%s%N)
"$tessera" compile "$cache/$model.onnx" -o "$work/compiled" >"$work/compile.log"
compiled=$(date +%s%N)
grep -E '^(compiled|[0-9]+ kernels|memory:)' "$work/compile.log"
"$tessera" run "$work/compiled" --input "$inputName=$cache/$model.input.npy" \
  --output "$work/out.npy" >/dev/null
done=$(date +%s%N)
echo "$model: compile $(((compiled - start) / 1000000)) ms, run $(((done - compiled) / 1000000)) ms"

"$python" "$src/tests/models/compare_output.py" "$model" "$work/out.npy" "$cache/$model.ref.npy"
