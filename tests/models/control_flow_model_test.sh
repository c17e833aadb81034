#!/usr/bin/env bash
# Usage: control_flow_model_test.sh TESSERA_BINARY SOURCE_DIR. A TorchScript model with a loop over
# a run-time count and an `if` on the data (an RNN-style cell repeated n times, then a branch on
# the sign of the sum), exported by PyTorch's ONNX exporter as Loop and If. Tessera compiles it
# once for the VM (`tessera compile` writes vm.json) and runs the directory with several counts;
# each result must match PyTorch's (max abs diff 1e-4 * (1 + max|ref|)).
set -euo pipefail
tessera="$1"
src="$2"
python=/usr/bin/python3   # Debian's, with torch
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! "$python" -c "import torch, onnx" 2>/dev/null; then
  echo "FAIL: $python lacks torch/onnx; run scripts/install_model_deps.sh"
  exit 1
fi
"$python" "$src/tests/models/control_flow_model.py" "$work"

"$tessera" compile "$work/model.onnx" -o "$work/compiled" >"$work/compile.log"
grep -q "VM program (control flow" "$work/compile.log" ||
  { echo "FAIL: the model did not compile for the VM"; cat "$work/compile.log"; exit 1; }
for n in 0 1 7 40; do
  for x in x negx; do
    "$tessera" run "$work/compiled" --input "x=$work/$x.npy" --input "n=$work/n$n.npy" \
      --output "$work/out.npy" >/dev/null
    "$python" - "$work/out.npy" "$work/ref_${x}_$n.npy" <<'PY'
import sys
import numpy as np
got, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
diff = float(np.abs(got - ref).max())
assert got.shape == ref.shape and diff <= 1e-4 * (1 + float(np.abs(ref).max())), (sys.argv[2], diff)
PY
  done
done
echo "control-flow model: compiled once for the VM, 8 runs match PyTorch"
