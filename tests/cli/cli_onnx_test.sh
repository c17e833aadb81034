#!/usr/bin/env bash
# Usage: cli_onnx_test.sh TESSERA_BINARY SOURCE_DIR. The ONNX paths of the CLI: import, and print /
# run / opt given a .onnx file, with --input-shape; bad models exit 1 with a diagnostic.
set -u
tessera="$1"
model="$2/tests/data/onnx/mlp.onnx"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

expect 0 "import --help" -- "$tessera" import --help
contains "$work/out" "usage: tessera import" "import help"
expect 0 "import --list-ops" -- "$tessera" import --list-ops
contains "$work/out" "Conv" "supported ops listed"

# The model's batch dimension is symbolic and kept as `?`; its Shape -> Gather -> Unsqueeze ->
# Concat -> Reshape (x.view(x.size(0), -1)) is followed at import into reshape's copy code.
expect 0 "dynamic input without a shape" -- "$tessera" import "$model"
contains "$work/out" "def @main(%x: Tensor[(?, 4), float32]" "the batch stays dynamic"
contains "$work/out" "reshape(%x, newshape=[0, -1])" "the batch is copied, not read"
expect 2 "malformed --input-shape" -- "$tessera" import "$model" --input-shape x=2,four
expect 1 "--input-shape for a non-input" -- "$tessera" import "$model" --input-shape y=2,4

expect 0 "import to a file" -- "$tessera" import "$model" --input-shape x=2,4 -o "$work/mlp.relay"
contains "$work/mlp.relay" "#[metadata]" "weights are included"
contains "$work/mlp.relay" "nn.dense(%x," "the folded view leaves no reshape"
expect 0 "print the imported text" -- "$tessera" print "$work/mlp.relay"
expect 0 "run the imported text" -- "$tessera" run "$work/mlp.relay" --random-inputs 3 --output "$work/a.npy"
expect 0 "run the .onnx directly" -- "$tessera" run "$model" --input-shape x=2,4 --random-inputs 3 --output "$work/b.npy"
cmp -s "$work/a.npy" "$work/b.npy" || { echo "FAIL: .onnx and imported text give different results"; failures=$((failures + 1)); }
expect 0 "run prints softmax rows" -- "$tessera" run "$model" --input-shape x=1,4 --random-inputs 0 --no-optimize
contains "$work/out" "Tensor[(1, 3), float32]" "result type"
expect 0 "print the .onnx" -- "$tessera" print "$model" --input-shape x=1,4
contains "$work/out" "nn.softmax" "printed graph"
expect 0 "opt the .onnx" -- "$tessera" opt "$model" --input-shape x=1,4
contains "$work/out" "Primitive=1" "the pipeline fuses the imported graph"
# Content dispatch: an ONNX model without the .onnx extension.
cp "$model" "$work/model.bin"
expect 0 "ONNX detected by content" -- "$tessera" print "$work/model.bin" --input-shape x=1,4
expect 2 "--input-shape on Relay text" -- "$tessera" print "$work/mlp.relay" --input-shape x=1,4

head -c 200 "$model" >"$work/truncated.onnx"
expect 1 "truncated model" -- "$tessera" import "$work/truncated.onnx" --input-shape x=1,4
contains "$work/err" "truncated.onnx" "the file is named"
printf 'garbage\x00\x01\x02' >"$work/garbage.onnx"
expect 1 "garbage model" -- "$tessera" import "$work/garbage.onnx"
contains "$work/err" "error[onnx_parse]" "parse error code"
expect 1 "missing model" -- "$tessera" import "$work/nope.onnx"
test -e "$work/out.relay" && { echo "FAIL: a failed import wrote output"; failures=$((failures + 1)); }
expect 1 "failed import writes nothing" -- "$tessera" import "$work/garbage.onnx" -o "$work/out.relay"
test -e "$work/out.relay" && { echo "FAIL: a failed import wrote output"; failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli_onnx_test: all passed"
