#!/usr/bin/env bash
# Usage: cli_build_test.sh TESSERA_BINARY SOURCE_DIR. `tessera compile` writes a module directory
# that `tessera run` executes in a fresh process; run compiles by default, --interpreter forces
# the oracle, --bench times runs; misuse exits 2, bad input exits 1.
set -u
tessera="$1"
src="$2"
model="$src/tests/data/tir/dense_relu.relay"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

expect 0 "compile --help" -- "$tessera" compile --help
contains "$work/out" "usage: tessera compile" "compile help"
expect 2 "compile without -o" -- "$tessera" compile "$model"
expect 1 "compile with a bad target" -- "$tessera" compile "$model" -o "$work/m" --target "cuda"
contains "$work/err" "error[target]" "target error"

expect 0 "compile" -- "$tessera" compile "$model" -o "$work/m"
contains "$work/out" "fused_nn_dense_add_nn_relu" "kernel listed"
contains "$work/out" "memory: planned" "planned memory printed"
for f in kernels.so graph.json params.npz; do
  test -s "$work/m/$f" || { echo "FAIL: $f not written"; failures=$((failures + 1)); }
done
contains "$work/m/graph.json" '"format": "tessera-graph-1"' "graph.json format"

# Which implementation each call got, and why the others were skipped.
expect 0 "compile --explain-strategy" -- "$tessera" compile "$model" -o "$work/e" --explain-strategy
contains "$work/out" "strategies (target llvm, keys cpu):" "explain header"
contains "$work/out" "nn.dense: dense_pack_runtime.x86 (priority 5)" "dense implementation chosen"
contains "$work/out" "skipped dense_pack.x86 (priority 10): the weight is not a constant" "skip reason"
contains "$work/out" "schedule: dense_pack_runtime.x86" "anchor schedule applied"
# Every stage of the compiler can be printed and timed.
expect 0 "compile --print-after all --time-passes" -- "$tessera" compile "$model" -o "$work/p" --print-after all --time-passes
for step in Optimize FuseOps LowerGraphToTIR ScheduleKernels LowerTIR FlattenBuffer CodegenLLVM PlanMemory; do
  contains "$work/err" "// after $step" "print-after $step"
  contains "$work/err" "$step: " "time of $step"
done
contains "$work/err" "define " "LLVM IR printed after CodegenLLVM"
# Every TIR lowering pass by name.
for pass in LowerInitBlock ConvertBlocksToOpaque FlattenBuffer VectorizeLoop UnrollLoop RemoveNoOp CommonSubexprElimTIR; do
  contains "$work/err" "// after $pass" "print-after $pass"
done
expect 0 "compile --print-after ScheduleKernels" -- "$tessera" compile "$model" -o "$work/q" --print-after ScheduleKernels
contains "$work/err" "T.vectorized" "scheduled kernel printed"
expect 2 "compile --print-after an unknown step" -- "$tessera" compile "$model" -o "$work/r" --print-after Nonsense
contains "$work/err" "no step or pass named 'Nonsense'" "unknown step named"
# The pass context as tvmc sets it: config keys and disabled passes reach the TIR lowering.
expect 0 "compile --pass-config tir.disable_vectorize" -- "$tessera" compile "$model" -o "$work/nv" --pass-config tir.disable_vectorize=true --print-after LowerTIR
if grep -qF "T.Broadcast" "$work/err"; then echo "FAIL: vectorized despite tir.disable_vectorize"; failures=$((failures + 1)); fi
expect 0 "compile --pass-config tir.add_lower_pass" -- "$tessera" compile "$model" -o "$work/ap" --pass-config 'tir.add_lower_pass=[[3, "RemoveNoOp"]]' --time-passes
test "$(grep -c '^  RemoveNoOp: ' "$work/err")" = 2 || { echo "FAIL: RemoveNoOp did not run twice"; failures=$((failures + 1)); }
expect 0 "compile --disabled-pass" -- "$tessera" compile "$model" -o "$work/dp" --disabled-pass FoldConstant,CommonSubexprElimTIR --time-passes
if grep -q '^  CommonSubexprElimTIR: \|^    FoldConstant: ' "$work/err"; then echo "FAIL: a disabled pass ran"; failures=$((failures + 1)); fi
expect 1 "compile with an unknown config key" -- "$tessera" compile "$model" -o "$work/uk" --pass-config tir.no_such_key=1
contains "$work/err" "error[pass_config]" "config key error"
contains "$work/err" "unknown config key 'tir.no_such_key'" "the key is named"
expect 1 "compile with a malformed config value" -- "$tessera" compile "$model" -o "$work/mv" --pass-config 'tir.UnrollLoop={"auto_max_step": true}'
contains "$work/err" "field 'auto_max_step' expects an integer" "the field is named"
expect 1 "compile disabling an unknown pass" -- "$tessera" compile "$model" -o "$work/up" --disabled-pass NoSuchPass
contains "$work/err" "--disabled-pass NoSuchPass" "the flag is named"
expect 1 "compile disabling a pass codegen needs" -- "$tessera" compile "$model" -o "$work/fb" --disabled-pass FlattenBuffer
contains "$work/err" "cannot be disabled" "mandatory pass"
test ! -e "$work/fb" || { echo "FAIL: a failed compile left $work/fb"; failures=$((failures + 1)); }
expect 2 "--pass-config without a value" -- "$tessera" compile "$model" -o "$work/nv2" --pass-config tir.disable_vectorize
# A float model for VTA: nothing to pack, every kernel the CPU's, and the note says so (the
# quantized models on VTA: cli_vta_run_test.sh).
expect 0 "compile a float model for VTA" -- "$tessera" compile "$model" -o "$work/v" --target vta
contains "$work/err" "no convolution of this module runs on VTA" "no-VTA note"
# Other architectures: the CLI links only X86 (TESSERA_STATIC_LLVM_TARGETS), and with the shared
# libLLVM (TESSERA_STATIC_LLVM off) the host's linker refuses the objects: an error either way,
# and no directory left behind.
expect 1 "cross-compile for AArch64" -- "$tessera" compile "$model" -o "$work/arm" --target "llvm -mtriple=aarch64-linux-gnu"
contains "$work/err" "aarch64-linux-gnu" "the error names the triple"
test ! -e "$work/arm" || { echo "FAIL: a failed compile left $work/arm"; failures=$((failures + 1)); }
expect 1 "compile for RISC-V" -- "$tessera" compile "$model" -o "$work/rv" --target "llvm -mtriple=riscv64-linux-gnu"
test ! -e "$work/rv" || { echo "FAIL: a failed compile left $work/rv"; failures=$((failures + 1)); }

# The same inputs through the compiled directory (a fresh process), compiling on the fly, and
# the interpreter; the compiled paths agree bitwise.
expect 0 "run the directory" -- "$tessera" run "$work/m" --random-inputs 5 --output "$work/a.npy"
expect 0 "run compiled from source" -- "$tessera" run "$model" --random-inputs 5 --output "$work/b.npy"
expect 0 "run on the interpreter" -- "$tessera" run "$model" --random-inputs 5 --interpreter --output "$work/c.npy"
cmp -s "$work/a.npy" "$work/b.npy" || { echo "FAIL: directory and in-process compiled runs differ"; failures=$((failures + 1)); }
test -s "$work/c.npy" || { echo "FAIL: interpreter output missing"; failures=$((failures + 1)); }

expect 0 "bench" -- "$tessera" run "$work/m" --random-inputs 5 --bench 5
contains "$work/out" "Tensor[(1, 128), float32]" "bench still prints the result"
contains "$work/out" "bench (compiled, 5 runs): mean" "bench line"
contains "$work/out" "median" "bench median"
expect 0 "bench the interpreter" -- "$tessera" run "$model" --random-inputs 5 --bench 2 --interpreter
contains "$work/out" "bench (interpreter, 2 runs)" "interpreter bench line"
expect 2 "bad --bench" -- "$tessera" run "$model" --random-inputs 5 --bench zero
expect 0 "profile" -- "$tessera" run "$work/m" --random-inputs 5 --profile 3
contains "$work/out" "profile (median of the runs):" "profile header"
contains "$work/out" "fused_nn_dense" "profile names the kernels"
contains "$work/out" "total" "profile total"
expect 2 "bad --profile" -- "$tessera" run "$work/m" --random-inputs 5 --profile -1
expect 2 "--interpreter on a directory" -- "$tessera" run "$work/m" --random-inputs 5 --interpreter

# Integer graph: compiled and interpreted outputs are identical.
cat >"$work/int.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%a: Tensor[(3, 5), int32], %b: Tensor[(3, 5), int32]) {
  %0 = multiply(%a, %b);
  %1 = add(%0, %a);
  %2 = max(%1, axis=[1]);
  (%1, %2)
}
RELAY
expect 0 "compiled int graph" -- "$tessera" run "$work/int.relay" --random-inputs 3 --output "$work/i1.npz"
expect 0 "interpreted int graph" -- "$tessera" run "$work/int.relay" --random-inputs 3 --interpreter --output "$work/i2.npz"
cmp -s "$work/i1.npz" "$work/i2.npz" || { echo "FAIL: integer graph differs between engines"; failures=$((failures + 1)); }

# Errors name the input.
"$tessera" run "$work/m" --random-inputs 1 --output "$work/y.npy" >/dev/null
expect 1 "wrong input shape on a directory" -- "$tessera" run "$work/m" --input x="$work/y.npy" --random-inputs 1
contains "$work/err" "%x" "shape error names the input"
contains "$work/err" "expected shape (1, 784)" "shape error says what was expected"
expect 1 "unknown input on a directory" -- "$tessera" run "$work/m" --input q="$work/y.npy" --random-inputs 1
contains "$work/err" "no parameter named %q" "unknown input named"
expect 1 "missing inputs on a directory" -- "$tessera" run "$work/m"
contains "$work/err" "%x: Tensor[(1, 784), float32]" "missing input listed"

# ONNX models compile with --input-shape; an uncompilable module falls back with a note.
expect 0 "compile onnx" -- "$tessera" compile "$src/tests/data/onnx/mlp.onnx" --input-shape x=2,4 -o "$work/onnx"
expect 0 "run onnx directory" -- "$tessera" run "$work/onnx" --random-inputs 2
cat >"$work/if.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%c: bool, %x: Tensor[(2), float32]) {
  if (%c) { add(%x, %x) } else { %x }
}
RELAY
# Control flow runs compiled on the VM (no fallback note), with the interpreter's results; seed 1
# makes %c true, seed 2 false.
for seed in 1 2; do
  expect 0 "control flow runs on the VM" -- "$tessera" run "$work/if.relay" --random-inputs $seed --output "$work/vm$seed.npy"
  if grep -qF "running the reference interpreter" "$work/err"; then
    echo "FAIL: control flow fell back to the interpreter"; failures=$((failures + 1))
  fi
  expect 0 "control flow on the interpreter" -- "$tessera" run "$work/if.relay" --random-inputs $seed --interpreter --output "$work/in$seed.npy"
  cmp -s "$work/vm$seed.npy" "$work/in$seed.npy" || { echo "FAIL: VM and interpreter differ (seed $seed)"; failures=$((failures + 1)); }
done
expect 0 "VM bench" -- "$tessera" run "$work/if.relay" --random-inputs 1 --bench 3
contains "$work/out" "bench (compiled, VM, 3 runs)" "VM timing line"
expect 0 "VM profile" -- "$tessera" run "$work/if.relay" --random-inputs 1 --profile 3
contains "$work/out" "profile (median of the runs):" "VM profile table"
contains "$work/out" "fused_add" "VM profile names the kernel"
expect 0 "control flow compiles for the VM" -- "$tessera" compile "$work/if.relay" -o "$work/ifvm"
contains "$work/out" "VM program (control flow or dynamic shapes): 1 functions" "VM program summary"
for f in kernels.so vm.json constants.npz; do
  test -s "$work/ifvm/$f" || { echo "FAIL: $f not written for the VM"; failures=$((failures + 1)); }
done
expect 0 "run the VM directory" -- "$tessera" run "$work/ifvm" --random-inputs 1 --output "$work/vmdir1.npy"
cmp -s "$work/vmdir1.npy" "$work/in1.npy" || { echo "FAIL: VM directory and interpreter differ"; failures=$((failures + 1)); }
expect 2 "VM directory rejects --interpreter" -- "$tessera" run "$work/ifvm" --random-inputs 1 --interpreter

# An op with a data-dependent output shape (argwhere) compiles for the VM (a builtin) and matches
# the interpreter.
cat >"$work/nz.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  transpose(argwhere(%x), axes=[1, 0])
}
RELAY
expect 0 "data-dependent shape runs compiled" -- "$tessera" run "$work/nz.relay" --random-inputs 3 --no-fallback --output "$work/nz.npy"
contains "$work/out" "engine: compiled (VM)" "argwhere on the VM"
expect 0 "data-dependent shape on the interpreter" -- "$tessera" run "$work/nz.relay" --random-inputs 3 --interpreter --output "$work/nzi.npy"
cmp -s "$work/nz.npy" "$work/nzi.npy" || { echo "FAIL: argwhere compiled and interpreted differ"; failures=$((failures + 1)); }
expect 0 "data-dependent shape compiles" -- "$tessera" compile "$work/nz.relay" -o "$work/nz"
contains "$work/out" "VM program" "argwhere compiles for the VM"
# A `?` extent that no shape function computes does not compile: an error naming the op, not a
# crash, and no directory.
cat >"$work/pad.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(?, 3), float32]) {
  nn.pad(%x, 0f, pad_width=[[1, 1], [0, 0]])
}
RELAY
expect 1 "an uncomputable extent does not compile" -- "$tessera" compile "$work/pad.relay" -o "$work/pad"
contains "$work/err" "error[dynamic_shape]" "compile error code"
contains "$work/err" "nn.pad" "compile error names the op"
test ! -e "$work/pad" || { echo "FAIL: a failed compile left $work/pad"; failures=$((failures + 1)); }
# Params are written into OUT_DIR while compiling: a failed compile into a module directory leaves
# that module as it was, with no temporary file.
cp "$work/m/params.npz" "$work/m-params.npz"
expect 1 "failed compile into an existing module" -- "$tessera" compile "$work/pad.relay" -o "$work/m"
cmp -s "$work/m/params.npz" "$work/m-params.npz" || { echo "FAIL: a failed compile changed $work/m/params.npz"; failures=$((failures + 1)); }
if ls "$work/m" | grep -q tmp-tessera; then echo "FAIL: a failed compile left a temporary file in $work/m"; failures=$((failures + 1)); fi
expect 0 "the module still runs" -- "$tessera" run "$work/m" --random-inputs 5 --output "$work/m-again.npy"
cmp -s "$work/a.npy" "$work/m-again.npy" || { echo "FAIL: the module changed after a failed compile into it"; failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
  echo "cli_build: $failures failure(s)"
  exit 1
fi
echo "cli_build: all checks passed"
