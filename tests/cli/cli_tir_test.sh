#!/usr/bin/env bash
# Usage: cli_tir_test.sh TESSERA_BINARY SOURCE_DIR. `tessera tir`: kernels of a graph module as
# TensorIR, a schedule trace replayed on one, lowering; misuse exits 2, bad input exits 1.
set -u
tessera="$1"
data="$2/tests/data/tir"
model="$data/dense_relu.relay"
trace="$data/dense_tile_trace.json"
kernel=fused_nn_dense_add_nn_relu
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

expect 0 "tir --help" -- "$tessera" tir --help
contains "$work/out" "usage: tessera tir" "tir help"

expect 0 "list kernels" -- "$tessera" tir "$model" --list
contains "$work/out" "$kernel" "dense+bias+relu fuse into one kernel"

expect 0 "print kernels" -- "$tessera" tir "$model"
contains "$work/out" "def $kernel(p0: T.Buffer((1, 784), \"float32\")" "kernel signature"
contains "$work/out" 'with T.block("T_matmul_NT"):' "dense block"
contains "$work/out" 'v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])' "reduction iter vars"
contains "$work/out" "T.max(T_add[v_i0, v_i1], T.float32(0.0))" "relu"

# The trace tiles the dense loop by the recorded decision [16, 8] and splits off the init.
expect 0 "replay a trace" -- "$tessera" tir "$model" --func "$kernel" --trace "$trace"
contains "$work/out" "for i0, i1_0 in T.grid(1, 16):" "split by the decision"
contains "$work/out" 'with T.block("T_matmul_NT_init"):' "decomposed init"
contains "$work/out" "v_i1 = T.axis.spatial(128, i1_0 * 8 + i1_1)" "split binding"

expect 0 "lower after the trace" -- "$tessera" tir "$model" --func "$kernel" --trace "$trace" --lower
contains "$work/out" "T.decl_buffer((128,))" "intermediate allocated flat"
lacks "$work/out" "T.block(" "no blocks after lowering"
expect 0 "print after a lowering pass" -- "$tessera" tir "$model" --lower --print-after FlattenBuffer
contains "$work/err" "// after FlattenBuffer" "pass output on stderr"
# The same instrumented steps as `tessera compile`: graph passes, steps and TIR passes by name.
expect 0 "time every pass" -- "$tessera" tir "$model" --lower --time-passes --print-after FuseOps
contains "$work/err" "// after FuseOps" "graph pass printed"
for name in Optimize FuseOps LowerGraphToTIR ScheduleKernels LowerInitBlock FlattenBuffer VectorizeLoop; do
  contains "$work/err" "$name: " "time of $name"
done
expect 0 "the context's config reaches --lower" -- "$tessera" tir "$model" --default-schedule --lower --pass-config tir.disable_vectorize=true
lacks "$work/out" "T.Broadcast" "no vector code under tir.disable_vectorize"

expect 0 "write to a file" -- "$tessera" tir "$model" -o "$work/k.py"
contains "$work/k.py" "@I.ir_module" "file written"

# Misuse: exit 2. Bad input: exit 1 with a diagnostic, and no output file.
expect 2 "trace without --func" -- "$tessera" tir "$model" --trace "$trace"
expect 2 "print-after without --lower" -- "$tessera" tir "$model" --print-after Simplify
expect 2 "no file" -- "$tessera" tir
expect 1 "unknown kernel" -- "$tessera" tir "$model" --func nope
contains "$work/err" "no kernel named nope; the kernels are: $kernel" "kernel names listed"
echo '[[["GetBlock",[],["nope","'$kernel'"],["b0"]]],[]]' >"$work/bad_block.json"
expect 1 "trace naming a missing block" -- "$tessera" tir "$model" --func "$kernel" --trace "$work/bad_block.json" -o "$work/none.py"
contains "$work/err" "nope" "the missing block is named"
[ -e "$work/none.py" ] && { echo "FAIL: output written on error"; failures=$((failures + 1)); }
echo '[[["GetBlock",' >"$work/truncated.json"
expect 1 "malformed trace JSON" -- "$tessera" tir "$model" --func "$kernel" --trace "$work/truncated.json"
# A `?` dim goes the VM's way: its kernel has a symbolic extent. A module the compiler cannot
# lower is the compiler's error, not kernels made some other way.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(?, 4), float32]) {\n  nn.relu(%%x)\n}\n' >"$work/dyn.relay"
expect 0 "dynamic batch" -- "$tessera" tir "$work/dyn.relay"
contains "$work/out" 'T.Buffer((1, 4), "float32")' "a kernel for one row of a dynamic batch"
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(?, 4), float32]) {\n  exp(reshape(%%x, newshape=[-1]))\n}\n' >"$work/flat.relay"
expect 0 "dynamic shapes" -- "$tessera" tir "$work/flat.relay"
contains "$work/out" "any_dim = T.int32()" "a symbolic extent"
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(?, 4), float32]) {\n  nn.pad(%%x, 0f, pad_width=[[1, 1], [0, 0]])\n}\n' >"$work/pad.relay"
expect 1 "an extent no shape function computes" -- "$tessera" tir "$work/pad.relay" --list
contains "$work/err" "error[dynamic_shape]" "the lowering error"
contains "$work/err" "nn.pad" "the lowering error names the op"
# Control flow goes the VM's way, kernels and all.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(4), float32], %%c: bool) {\n  if (%%c) { nn.relu(%%x) } else { exp(%%x) }\n}\n' >"$work/cf.relay"
expect 0 "control flow" -- "$tessera" tir "$work/cf.relay" --list
contains "$work/out" "fused_exp" "kernels of both branches"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "cli_tir: all checks passed"
