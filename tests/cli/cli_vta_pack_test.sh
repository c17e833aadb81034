#!/usr/bin/env bash
# Usage: cli_vta_pack_test.sh TESSERA SOURCE_DIR. `tessera vta pack` on the quantized FashionMNIST
# CNN: TVM's start/stop region and seed 000's variant with --composite, each packed module run
# compiled and compared bit for bit with the unpacked one; the MLP's dense layers packed (and not,
# with --no-pack-dense); then the usage and input errors.
set -u
tessera="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

expect 0 "quantize the CNN" -- "$tessera" quantize "$src/examples/fashion_mnist/cnn.onnx" -o "$work/q.relay"
expect 0 "run the quantized CNN" -- "$tessera" run "$work/q.relay" --random-inputs 7 --no-fallback \
  --output "$work/q.npy"

# TVM's graph_pack: packed from the first max pool's output to just before the second max pool.
expect 0 "vta pack with a region" -- "$tessera" vta pack "$work/q.relay" --start-name nn.max_pool2d \
  --stop-name nn.max_pool2d -o "$work/region.relay"
contains "$work/region.relay" 'data_layout="NCHW1n16c", kernel_layout="OIHW16o16i"' "packed conv"
contains "$work/region.relay" 'transpose(%22, axes=[0, 4, 1, 5, 2, 3])' "unpack before the stop"
expect 0 "run the packed CNN" -- "$tessera" run "$work/region.relay" --random-inputs 7 --no-fallback \
  --output "$work/region.npy"
contains "$work/out" "engine: compiled" "packed CNN compiled"

# Seed 000's variant, folded and merged into the four VTA composites.
expect 0 "vta pack --composite" -- "$tessera" vta pack "$work/q.relay" --composite -o "$work/comp.relay"
for fn in "@vta_preprocessing__0" "@vta_reshape_transpose__1" "@vta_conv2d__2" "@vta_output__3"; do
  contains "$work/comp.relay" "def $fn(" "composite $fn"
done
contains "$work/comp.relay" 'ConvAttrs={padding=[1, 1, 1, 1], channels=32' "ConvAttrs"
expect 0 "run the composite CNN" -- "$tessera" run "$work/comp.relay" --random-inputs 7 --no-fallback \
  --output "$work/comp.npy"

/usr/bin/python3 - "$work" <<'PY' || { echo "FAIL: packed results differ"; failures=$((failures + 1)); }
import sys
import numpy as np
w = sys.argv[1]
q = np.load(f"{w}/q.npy")
for name in ("region", "comp"):
    assert np.array_equal(q, np.load(f"{w}/{name}.npy")), name
PY

# Dense layers (a Tessera extension): the MLP quantized with its dense layers packs its requantized
# hidden layer (784 -> 128: data (1, 49, 1, 16), weight (8, 49, 16, 16)), not the float classifier;
# --no-pack-dense leaves both as TVM does.
expect 0 "quantize the MLP's dense layers" -- "$tessera" quantize "$src/examples/fashion_mnist/mlp.onnx" \
  --skip-dense-layer false -o "$work/mlp.relay"
expect 0 "run the quantized MLP" -- "$tessera" run "$work/mlp.relay" --random-inputs 7 --no-fallback \
  --output "$work/mlp.npy"
expect 0 "vta pack the MLP" -- "$tessera" vta pack "$work/mlp.relay" -o "$work/mlp_packed.relay"
contains "$work/mlp_packed.relay" 'ty=Tensor[(8, 49, 16, 16), int8]' "packed dense weight"
contains "$work/mlp_packed.relay" 'ty=Tensor[(1, 8, 1, 16), int32]' "packed dense result"
expect 0 "run the packed MLP" -- "$tessera" run "$work/mlp_packed.relay" --random-inputs 7 --no-fallback \
  --output "$work/mlp_packed.npy"
expect 0 "vta pack --no-pack-dense" -- "$tessera" vta pack "$work/mlp.relay" --no-pack-dense \
  -o "$work/mlp_plain.relay"
lacks "$work/mlp_plain.relay" '(8, 49, 16, 16)' "no packed dense with --no-pack-dense"
/usr/bin/python3 - "$work" <<'PY' || { echo "FAIL: packed MLP differs"; failures=$((failures + 1)); }
import sys
import numpy as np
w = sys.argv[1]
assert np.array_equal(np.load(f"{w}/mlp.npy"), np.load(f"{w}/mlp_packed.npy"))
PY

# Errors: located diagnostics (exit 1) and usage mistakes (exit 2); nothing written on failure.
expect 1 "no such start op" -- "$tessera" vta pack "$work/q.relay" --start-name nn.avg_pool2d \
  --stop-name nn.dense -o "$work/bad.relay"
contains "$work/err" "error[graph_pack]" "graph_pack diagnostic"
contains "$work/err" "'nn.avg_pool2d'" "missing start op named"
[ -e "$work/bad.relay" ] && { echo "FAIL: output written after an error"; failures=$((failures + 1)); }
expect 1 "batch factor" -- "$tessera" vta pack "$work/q.relay" --bfactor 2
contains "$work/err" "not divisible by the VTA batch factor 2" "batch factor diagnostic"
expect 2 "start without stop" -- "$tessera" vta pack "$work/q.relay" --start-name nn.max_pool2d
expect 2 "--composite with a region" -- "$tessera" vta pack "$work/q.relay" --composite \
  --start-name nn.max_pool2d --stop-name nn.max_pool2d
expect 2 "bad cfactor" -- "$tessera" vta pack "$work/q.relay" --cfactor zero
printf 'def @main(%%x: Tensor[(1, 16), int8]) {\n  nn.relu(%%x\n}\n' >"$work/broken.relay"
expect 1 "malformed module" -- "$tessera" vta pack "$work/broken.relay"
contains "$work/err" "broken.relay:" "parse error located"

[ "$failures" -eq 0 ] || exit 1
echo "cli_vta_pack_test: all checks passed"
