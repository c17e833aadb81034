#!/usr/bin/env bash
# Usage: dynamic_batch_model_test.sh TESSERA_BINARY SOURCE_DIR. A small CNN exported by PyTorch
# with a dynamic batch axis (dim_param "batch"): `tessera compile` builds it once, for the VM, with
# `?` as the batch; the one directory then runs batches 1, 3 and 8, each matching PyTorch (max abs
# diff 1e-4 * (1 + max|ref|)). With --input-shape the same model still specialises to one batch.
# A second export reads the batch with x.size(0) (Shape -> ... -> Reshape), compiled once too.
set -euo pipefail
source "$(dirname "$0")/model_test_lib.sh"
model_test_setup "$1" "$2" dynamic_batch_model.py

# compile_once MODEL REF_PREFIX: one VM build, then batches 1, 3 and 8 against PyTorch.
compile_once() {
  local name="$1" refs="$2"
  "$tessera" compile "$work/$name.onnx" -o "$work/$name.vm" >"$work/compile.log"
  grep -q "VM program" "$work/compile.log" ||
    { echo "FAIL: $name did not compile for the VM"; cat "$work/compile.log"; exit 1; }
  for b in 1 3 8; do
    "$tessera" run "$work/$name.vm" --input "x=$work/x$b.npy" --output "$work/out.npy" >"$work/run.log"
    grep -q "^engine: compiled (VM)" "$work/run.log" ||
      { echo "FAIL: $name batch $b did not run on the VM"; cat "$work/run.log"; exit 1; }
    close_to_reference "$work/out.npy" "$work/$refs$b.npy"
  done
}
compile_once model ref
# The model whose export computes its reshape targets from the batch at run time.
compile_once view_model view_ref
# Specialised to batch 3 on request: the graph executor, and batch 3 only.
"$tessera" compile "$work/model.onnx" --input-shape x=3,3,16,16 -o "$work/static" >"$work/static.log"
grep -q "VM program" "$work/static.log" && { echo "FAIL: --input-shape did not specialise"; exit 1; }
"$tessera" run "$work/static" --input "x=$work/x3.npy" --output "$work/out.npy" >/dev/null
close_to_reference "$work/out.npy" "$work/ref3.npy"
echo "dynamic-batch models: compiled once, batches 1, 3 and 8 match PyTorch"
