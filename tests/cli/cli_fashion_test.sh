#!/usr/bin/env bash
# Usage: cli_fashion_test.sh TESSERA_BINARY SOURCE_DIR [full]. The FashionMNIST main job: the
# committed MLP and CNN are compiled and must predict exactly what PyTorch predicted for every test
# image (examples/fashion_mnist/reference.npz), so their accuracy equals PyTorch's. Without `full`
# the CNN is checked on the first 2,000 images (the full run is in the `slow` label).
set -u
tessera="$1"
dir="$2/examples/fashion_mnist"
full="${3:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

check() {
  local what="$1"
  shift
  if ! "$@" >"$work/out" 2>"$work/err"; then
    echo "FAIL: $what"
    sed 's/^/  | /' "$work/out" "$work/err" | head -8
    failures=$((failures + 1))
  fi
}
contains() {
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: $3: '$2' not found"
    sed 's/^/  | /' "$1" | head -12
    failures=$((failures + 1))
  fi
}

check "classify the samples" "$tessera" classify "$dir/mlp.onnx" --samples "$dir/samples.npz"
contains "$work/out" "image 0: predicted Ankle boot   true Ankle boot" "first sample"
contains "$work/out" "8 of 8 correct" "all samples right"

check "MLP: every prediction equals PyTorch's" \
  "$tessera" eval "$dir/mlp.onnx" --reference "$dir/reference.npz:mlp_pred"
contains "$work/out" "accuracy: 0.8609 (8609 of 10000)" "MLP accuracy equals PyTorch's"
contains "$work/out" "same prediction as the reference: 10000 of 10000" "MLP agreement"

if [ "$full" = full ]; then
  check "CNN: every prediction equals PyTorch's" \
    "$tessera" eval "$dir/cnn.onnx" --reference "$dir/reference.npz:cnn_pred"
  contains "$work/out" "accuracy: 0.8790 (8790 of 10000)" "CNN accuracy equals PyTorch's"
else
  check "CNN: first 2000 predictions equal PyTorch's" \
    "$tessera" eval "$dir/cnn.onnx" --limit 2000 --reference "$dir/reference.npz:cnn_pred"
  contains "$work/out" "same prediction as the reference: 2000 of 2000" "CNN agreement"
fi

# Bad input: a missing dataset directory and a reference key that does not exist.
"$tessera" eval "$dir/mlp.onnx" --data "$work/nowhere" >"$work/out" 2>"$work/err"
[ $? -eq 1 ] || { echo "FAIL: missing data dir should exit 1"; failures=$((failures + 1)); }
contains "$work/err" "cannot open" "missing data named"
"$tessera" eval "$dir/mlp.onnx" --reference "$dir/reference.npz:nope" >"$work/out" 2>"$work/err"
[ $? -eq 1 ] || { echo "FAIL: unknown reference key should exit 1"; failures=$((failures + 1)); }
contains "$work/err" "no array named nope" "unknown key named"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "cli_fashion: all checks passed"
