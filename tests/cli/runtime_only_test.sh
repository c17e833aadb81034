#!/usr/bin/env bash
# Usage: runtime_only_test.sh TESSERA_BINARY RUN_GRAPH_MODEL_BINARY SOURCE_DIR. A model compiled by
# `tessera compile` runs in a program that links the runtime only (examples/deploy/): it pulls in
# no LLVM, gives exactly the compiler's own output, and reports bad input with a diagnostic.
set -u
tessera="$1"
runner="$2"
src="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}

if ldd "$runner" | grep -qi 'llvm'; then
  fail "the runtime-only program links LLVM:"
  ldd "$runner" | grep -i llvm
fi

"$tessera" compile "$src/examples/fashion_mnist/cnn.onnx" -o "$work/cnn" >/dev/null ||
  fail "tessera compile"
/usr/bin/python3 - "$work/x.npy" <<'PY'
import sys
import numpy as np
np.save(sys.argv[1], np.random.default_rng(7).standard_normal((1, 1, 28, 28)).astype(np.float32))
PY
"$tessera" run "$work/cnn" --input x="$work/x.npy" --output "$work/by_cli.npy" >/dev/null ||
  fail "tessera run on the directory"
"$runner" "$work/cnn" x="$work/x.npy" -o "$work/by_runtime.npy" || fail "run_graph_model"
cmp -s "$work/by_cli.npy" "$work/by_runtime.npy" ||
  fail "the runtime-only program's output differs from tessera run's"

# Bad input: a clear diagnostic and exit 1, never a crash.
"$runner" "$work/nowhere" x="$work/x.npy" -o "$work/o.npy" 2>"$work/err"
[ $? -eq 1 ] && grep -q 'error\[export\]' "$work/err" || fail "missing directory not diagnosed"
"$runner" "$work/cnn" q="$work/x.npy" -o "$work/o.npy" 2>"$work/err"
[ $? -eq 1 ] && grep -q "no input named 'q'" "$work/err" || fail "unknown input not diagnosed"
"$runner" 2>/dev/null
[ $? -eq 2 ] || fail "usage mistake should exit 2"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "runtime-only deployment ok"
