# Sourced by the PyTorch-exported model tests: `model_test_setup TESSERA SOURCE_DIR SCRIPT [ARG...]`
# sets `tessera`, `src`, `python` (Debian's, with torch) and a scratch `work` directory removed on exit,
# checks that torch and onnx import, and runs tests/models/SCRIPT WORK ARG... to export the model
# into `work`.
model_test_setup() {
  tessera="$1"
  src="$2"
  python=/usr/bin/python3
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  if ! "$python" -c "import torch, onnx" 2>/dev/null; then
    echo "FAIL: $python lacks torch/onnx; run scripts/install_model_deps.sh"
    exit 1
  fi
  "$python" "$src/tests/models/$3" "$work" "${@:4}"
}

# close_to_reference GOT.npy REF.npy: same shape and max abs diff <= 1e-4 * (1 + max|ref|).
close_to_reference() {
  "$python" - "$1" "$2" <<'PY'
import sys
import numpy as np
got, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
diff = float(np.abs(got - ref).max())
assert got.shape == ref.shape and diff <= 1e-4 * (1 + float(np.abs(ref).max())), (sys.argv[2], diff)
PY
}
