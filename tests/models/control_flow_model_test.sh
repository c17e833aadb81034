#!/usr/bin/env bash
# Usage: control_flow_model_test.sh TESSERA_BINARY SOURCE_DIR. A TorchScript model with a loop over
# a run-time count and an `if` on the data (an RNN-style cell repeated n times, then a branch on
# the sign of the sum), exported by PyTorch's ONNX exporter as Loop and If. Tessera compiles it
# once for the VM (`tessera compile` writes vm.json) and runs the directory with several counts;
# each result must match PyTorch's (max abs diff 1e-4 * (1 + max|ref|)).
set -euo pipefail
source "$(dirname "$0")/model_test_lib.sh"
model_test_setup "$1" "$2" control_flow_model.py

"$tessera" compile "$work/model.onnx" -o "$work/compiled" >"$work/compile.log"
grep -q "VM program (control flow" "$work/compile.log" ||
  { echo "FAIL: the model did not compile for the VM"; cat "$work/compile.log"; exit 1; }
for n in 0 1 7 40; do
  for x in x negx; do
    "$tessera" run "$work/compiled" --input "x=$work/$x.npy" --input "n=$work/n$n.npy" \
      --output "$work/out.npy" >/dev/null
    close_to_reference "$work/out.npy" "$work/ref_${x}_$n.npy"
  done
done
echo "control-flow model: compiled once for the VM, 8 runs match PyTorch"
