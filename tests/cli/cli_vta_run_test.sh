#!/usr/bin/env bash
# Usage: cli_vta_run_test.sh TESSERA SOURCE_DIR. The quantized FashionMNIST CNN on VTA through the
# CLI: compiled with --target vta (packed automatically, or packed first by `tessera vta pack`),
# run from the compiled directory without --target, the result equal bit for bit to the CPU int8
# run; --vta-stats and --vta-trace; `tessera eval --target vta` classifying as the CPU does; the
# usage errors.
set -u
tessera="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
# shellcheck source=cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

expect 0 "quantize the CNN" -- "$tessera" quantize "$src/examples/fashion_mnist/cnn.onnx" -o "$work/q.relay"
expect 0 "CPU int8 run" -- "$tessera" run "$work/q.relay" --random-inputs 7 --no-fallback \
  --output "$work/cpu.npy"

expect 0 "compile for VTA" -- "$tessera" compile "$work/q.relay" --target vta -o "$work/vta"
contains "$work/vta/graph.json" '"name": "vta"' "graph.json records the vta device"
contains "$work/vta/graph.json" '"kernel": "__copy"' "copies at the device boundary"
expect 0 "run the VTA build" -- "$tessera" run "$work/vta" --random-inputs 7 --vta-stats \
  --vta-trace "$work/trace.json" --output "$work/vta.npy"
contains "$work/out" "engine: compiled (graph executor: cpu + vta)" "engine names both devices"
contains "$work/out" "Execution statistics:" "statistics header"
for counter in inp_load_nbytes wgt_load_nbytes acc_load_nbytes uop_load_nbytes out_store_nbytes \
  gemm_counter alu_counter; do
  contains "$work/out" "$counter" "counter $counter"
done
# The CNN's one int8 convolution: 14x14 pixels, 2 output blocks, 1 input block, 3x3 taps.
grep -qE 'gemm_counter +: +3528$' "$work/out" || {
  echo "FAIL: gemm_counter is not 3528"
  failures=$((failures + 1))
}
contains "$work/trace.json" '"traceEvents"' "Chrome trace written"

# TVM's start/stop variant, packed by the CLI first, compiled and run in one step.
expect 0 "vta pack with a region" -- "$tessera" vta pack "$work/q.relay" --start-name nn.max_pool2d \
  --stop-name nn.max_pool2d -o "$work/region.relay"
expect 0 "run the region on VTA" -- "$tessera" run "$work/region.relay" --target vta --no-fallback \
  --random-inputs 7 --output "$work/region.npy"
contains "$work/out" "cpu + vta" "region ran on VTA"

/usr/bin/python3 - "$work" <<'PY' || { echo "FAIL: VTA results differ from the CPU's"; failures=$((failures + 1)); }
import sys
import numpy as np
w = sys.argv[1]
cpu = np.load(f"{w}/cpu.npy")
for name in ("vta", "region"):
    assert np.array_equal(cpu, np.load(f"{w}/{name}.npy")), name
PY

# Accuracy on the simulator equals the CPU int8 model's, image for image.
expect 0 "eval int8 on the CPU" -- "$tessera" eval "$src/examples/fashion_mnist/cnn.onnx" --quantize \
  --limit 300
grep -o 'accuracy: [0-9.]* ([0-9]* of [0-9]*)' "$work/out" >"$work/cpu_acc"
expect 0 "eval int8 on VTA" -- "$tessera" eval "$src/examples/fashion_mnist/cnn.onnx" --quantize \
  --limit 300 --target vta
grep -o 'accuracy: [0-9.]* ([0-9]* of [0-9]*)' "$work/out" >"$work/vta_acc"
if [ ! -s "$work/cpu_acc" ] || ! cmp -s "$work/cpu_acc" "$work/vta_acc"; then
  echo "FAIL: accuracy on VTA ($(cat "$work/vta_acc")) differs from the CPU's ($(cat "$work/cpu_acc"))"
  failures=$((failures + 1))
fi

# Errors.
expect 1 "--vta-stats without VTA kernels" -- "$tessera" run "$work/q.relay" --random-inputs 7 --vta-stats
contains "$work/err" "error[vta_report]" "vta_report diagnostic"
expect 2 "--target llvm on a VTA directory" -- "$tessera" run "$work/vta" --target llvm --random-inputs 7
contains "$work/err" "records its targets" "directory target mismatch explained"

[ "$failures" -eq 0 ] || exit 1
echo "cli_vta_run_test: all checks passed"
