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

# A module with control flow (a loop as tail recursion) compiles for the VM and runs the same way.
cat >"$work/loop.relay" <<'RELAY'
#[version = "0.0.5"]
def @loop(%i: int64, %n: int64, %x: Tensor[(3), float32]) -> Tensor[(3), float32] {
  if (less(%i, %n)) { @loop(add(%i, 1i64), %n, add(multiply(%x, 0.5f), 1f)) } else { %x }
}
def @main(%n: int64, %x: Tensor[(3), float32]) -> Tensor[(3), float32] {
  @loop(0i64, %n, %x)
}
RELAY
"$tessera" compile "$work/loop.relay" -o "$work/loop" >/dev/null || fail "tessera compile (VM)"
/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
np.save(sys.argv[1] + "/n.npy", np.array(7, dtype=np.int64))
np.save(sys.argv[1] + "/x3.npy", np.array([1.0, -2.0, 8.0], dtype=np.float32))
PY
"$tessera" run "$work/loop" --input n="$work/n.npy" --input x="$work/x3.npy" --output "$work/vm_cli.npy" >/dev/null ||
  fail "tessera run on the VM directory"
"$runner" "$work/loop" n="$work/n.npy" x="$work/x3.npy" -o "$work/vm_runtime.npy" || fail "run_graph_model (VM)"
cmp -s "$work/vm_cli.npy" "$work/vm_runtime.npy" ||
  fail "the runtime-only program's VM output differs from tessera run's"
/usr/bin/python3 - "$work/vm_runtime.npy" <<'PY' || fail "the VM loop's result is wrong"
import sys
import numpy as np
x = np.array([1.0, -2.0, 8.0], dtype=np.float32)
for _ in range(7):
    x = x * np.float32(0.5) + np.float32(1)
assert np.allclose(np.load(sys.argv[1]), x), (np.load(sys.argv[1]), x)
PY

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "runtime-only deployment ok"
