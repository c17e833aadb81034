#!/usr/bin/env bash
# Usage: cli_quantize_test.sh TESSERA_BINARY SOURCE_DIR. `tessera quantize` writes an int8 module
# that parses back and runs compiled close to the float model; calibration datasets and --report
# work; bad flags exit 2, bad data or configurations exit 1 with a located diagnostic and leave
# an existing output file untouched.
set -u
tessera="$1"
src="$2"
model="$src/examples/fashion_mnist/mlp.onnx"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

expect 0 "quantize --help" -- "$tessera" quantize --help
contains "$work/out" "--calibrate-mode" "help lists the options"

# Global scale (no data needed), dense layers included: an integer chain with shifts.
expect 0 "quantize global_scale" -- "$tessera" quantize "$model" --skip-dense-layer false \
  -o "$work/q.relay"
contains "$work/q.relay" 'out_dtype="int32"' "int8 dense"
contains "$work/q.relay" "right_shift(" "power-of-two requantization"
expect 0 "the quantized module runs compiled" -- "$tessera" run "$work/q.relay" --random-inputs 3 \
  --output "$work/q.npy"
expect 0 "the float model on the same input" -- "$tessera" run "$model" --random-inputs 3 \
  --output "$work/f.npy"

python3 - "$work/q.npy" "$work/f.npy" <<'PY' || { echo "FAIL: int8 logits far from float"; failures=$((failures + 1)); }
import sys, struct
def load(path):  # a float32 .npy (version 1 header)
    raw = open(path, "rb").read()
    n = struct.unpack("<H", raw[8:10])[0]
    body = raw[10 + n:]
    return struct.unpack("<%df" % (len(body) // 4), body)
q, f = load(sys.argv[1]), load(sys.argv[2])
worst = max(abs(a - b) for a, b in zip(q, f))
print("max |int8 - float| logit difference:", worst)
sys.exit(0 if len(q) == 10 and worst < 0.5 else 1)
PY

# A calibration dataset: 2 x (1, 784) samples from the committed FashionMNIST images.
python3 - "$src/examples/fashion_mnist/samples.npz" "$work/data.npz" <<'PY' || failures=$((failures + 1))
import sys, zipfile, io, struct
# Copy the `images` array (8, 784) as `x`: the MLP's input is (1, 784), so the first axis holds
# eight samples of its batch of one.
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("images.npy")
with zipfile.ZipFile(sys.argv[2], "w") as out:
    out.writestr("x.npy", data)
PY
expect 0 "quantize kl_divergence with --report" -- "$tessera" quantize "$model" \
  --calibrate-mode kl_divergence --dataset "$work/data.npz" --samples 4 --skip-dense-layer false \
  --report -o "$work/kl.relay"
contains "$work/err" "SQNR dB" "report header"
contains "$work/err" "%x -> INPUT" "report row of the input"
# The same calibration through the reference interpreter instead of the compiled profile graph.
expect 0 "quantize kl_divergence on the interpreter" -- "$tessera" quantize "$model" \
  --calibrate-mode kl_divergence --dataset "$work/data.npz" --samples 4 --skip-dense-layer false \
  --calibrate-with interpreter -o "$work/kl_interp.relay"
contains "$work/kl_interp.relay" "nn.dense" "interpreter-calibrated module written"

# partition_conversions: the module split into @quantize_inputs, @quantized_main and
# @dequantize_outputs, which still compiles (build inlines them) and gives the same logits.
expect 0 "quantize with partition_conversions enabled" -- "$tessera" quantize "$model" \
  --skip-dense-layer false --partition-conversions fully_integral -o "$work/split.relay"
contains "$work/split.relay" "def @quantized_main(" "quantized_main written"
contains "$work/split.relay" "@quantize_inputs(%x)" "main calls the conversions"
expect 0 "the split module runs compiled" -- "$tessera" run "$work/split.relay" --random-inputs 3 \
  --output "$work/split.npy"
cmp -s "$work/split.npy" "$work/q.npy" || { echo "FAIL: split module differs"; failures=$((failures + 1)); }
# The dense layers left in float: not fully integral, named.
expect 1 "fully_integral with float layers" -- "$tessera" quantize "$model" \
  --partition-conversions fully_integral -o "$work/keep2.relay"
contains "$work/err" "not fully integral: its input %x is" "the float input named"

# Bad input: exit 1, a located message, nothing overwritten.
echo "keep" >"$work/keep.relay"
expect 1 "kl without a dataset" -- "$tessera" quantize "$model" --calibrate-mode kl_divergence \
  -o "$work/keep.relay"
contains "$work/err" "error[quantize_dataset]" "empty dataset diagnosed"
contains "$work/keep.relay" "keep" "output untouched on failure"
expect 1 "impossible qconfig" -- "$tessera" quantize "$model" --nbit-input 0 -o "$work/keep.relay"
contains "$work/err" "nbit_input" "qconfig field named"
expect 1 "unknown mode" -- "$tessera" quantize "$model" --calibrate-mode entropy
contains "$work/err" "calibrate_mode" "mode named"
# The pass context, as TVM's: seed 000's conv + bias + batch norm + relu quantized at opt level 3
# (`with PassContext(opt_level=3)`) has the bias and the batch-norm scale folded into the
# convolution; at 2 (quantize() outside any PassContext) FoldScaleAxis and CanonicalizeOps do not
# run, so nn.bias_add and the scale's multiply stay.
conv="$src/tests/data/quantize/conv_bn_relu.relay"
/usr/bin/python3 - "$work/conv_params.npz" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(0)
np.savez(sys.argv[1], w=rng.uniform(-0.2, 0.2, (36, 3, 3, 3)).astype("float32"),
         b=rng.uniform(-0.2, 0.2, 36).astype("float32"),
         gamma=rng.uniform(0.5, 1.5, 36).astype("float32"),
         beta=rng.uniform(-0.1, 0.1, 36).astype("float32"),
         mean=rng.uniform(-0.1, 0.1, 36).astype("float32"),
         var=rng.uniform(0.5, 1.5, 36).astype("float32"))
PY
expect 0 "quantize at opt level 3 (default)" -- "$tessera" quantize "$conv" --params "$work/conv_params.npz" --skip-conv-layers none -o "$work/o3.relay"
lacks "$work/o3.relay" "nn.bias_add(" "bias folded at level 3"
lacks "$work/o3.relay" "multiply(%4" "scale folded at level 3"
expect 0 "quantize at opt level 2" -- "$tessera" quantize "$conv" --params "$work/conv_params.npz" --skip-conv-layers none --opt-level 2 -o "$work/o2.relay"
contains "$work/o2.relay" "nn.bias_add(" "bias kept at level 2"
expect 0 "quantize --disabled-pass FoldScaleAxis" -- "$tessera" quantize "$conv" --params "$work/conv_params.npz" --skip-conv-layers none --disabled-pass FoldScaleAxis -o "$work/nf.relay"
if cmp -s "$work/o3.relay" "$work/nf.relay"; then echo "FAIL: disabling FoldScaleAxis changed nothing"; failures=$((failures + 1)); fi
expect 2 "quantize with a bad opt level" -- "$tessera" quantize "$conv" --opt-level 9
expect 2 "a malformed flag" -- "$tessera" quantize "$model" --skip-dense-layer maybe
expect 2 "an unknown calibration runner" -- "$tessera" quantize "$model" --calibrate-with gpu
expect 2 "no model" -- "$tessera" quantize

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli_quantize: ok"
