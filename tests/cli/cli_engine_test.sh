#!/usr/bin/env bash
# Usage: cli_engine_test.sh TESSERA_BINARY SOURCE_DIR. `tessera run` names the engine that ran on
# the first line of stdout: compiled on the graph executor or the VM, the interpreter because a
# flag asked for it, or the interpreter as a fallback after a build failure (with the error);
# --no-fallback turns that build failure into an error.
set -u
tessera="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

# first_line WANT WHAT: the first line of the last command's stdout is exactly WANT.
first_line() {
  local got
  got="$(head -n 1 "$work/out")"
  if [ "$got" != "$1" ]; then
    echo "FAIL: $2: first line '$got', expected '$1'"
    failures=$((failures + 1))
  fi
}

model="$src/tests/data/tir/dense_relu.relay"
expect 0 "graph module" -- "$tessera" run "$model" --random-inputs 1
first_line "engine: compiled (graph executor)" "graph executor"
contains "$work/out" "Tensor[" "the result follows the engine line"
expect 0 "graph module, saved" -- "$tessera" run "$model" --random-inputs 1 --output "$work/y.npy"
first_line "engine: compiled (graph executor)" "graph executor with --output"
contains "$work/out" "saved result to $work/y.npy" "the saved line stays"
expect 0 "--interpreter" -- "$tessera" run "$model" --random-inputs 1 --interpreter
first_line "engine: interpreter (asked: --interpreter)" "asked by --interpreter"
expect 0 "--no-optimize" -- "$tessera" run "$model" --random-inputs 1 --no-optimize
first_line "engine: interpreter (asked: --no-optimize)" "asked by --no-optimize"
expect 0 "--no-fallback on a module that compiles" -- "$tessera" run "$model" --random-inputs 1 --no-fallback
first_line "engine: compiled (graph executor)" "--no-fallback compiles as before"

cat >"$work/two.relay" <<'RELAY'
#[version = "0.0.5"]
def @helper(%x: Tensor[(2), float32]) {
  add(%x, %x)
}
def @main(%x: Tensor[(2), float32]) {
  multiply(%x, %x)
}
RELAY
expect 0 "--entry" -- "$tessera" run "$work/two.relay" --random-inputs 1 --entry helper
first_line "engine: interpreter (asked: --entry helper)" "asked by --entry"

cat >"$work/if.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%c: bool, %x: Tensor[(2), float32]) {
  if (%c) { add(%x, %x) } else { %x }
}
RELAY
expect 0 "control flow" -- "$tessera" run "$work/if.relay" --random-inputs 1
first_line "engine: compiled (VM)" "VM"
expect 0 "compile for the VM" -- "$tessera" compile "$work/if.relay" -o "$work/ifvm"
expect 0 "a VM directory" -- "$tessera" run "$work/ifvm" --random-inputs 1
first_line "engine: compiled (VM)" "VM directory"
expect 0 "compile a graph" -- "$tessera" compile "$model" -o "$work/m"
expect 0 "a graph directory" -- "$tessera" run "$work/m" --random-inputs 1 --no-fallback
first_line "engine: compiled (graph executor)" "graph directory"

# A `?` extent no shape function computes does not build: the fallback is reported with the build
# error on stdout (the note on stderr stays); --no-fallback makes it an error with exit 1.
cat >"$work/nz.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  nn.pad(argwhere(%x), 0i64, pad_width=[[1, 1], [0, 0]])
}
RELAY
expect 0 "fallback" -- "$tessera" run "$work/nz.relay" --random-inputs 3
head -n 1 "$work/out" >"$work/first"
contains "$work/first" "engine: interpreter (fallback: " "fallback reported first"
contains "$work/first" "error[dynamic_shape]" "fallback names the build error"
contains "$work/first" "nn.pad" "fallback names the op"
contains "$work/err" "running the reference interpreter" "fallback note on stderr"
expect 1 "--no-fallback" -- "$tessera" run "$work/nz.relay" --random-inputs 3 --no-fallback
contains "$work/err" "error[dynamic_shape]" "--no-fallback prints the build error"
contains "$work/err" "--no-fallback: not running the reference interpreter" "--no-fallback note"
lacks "$work/out" "engine:" "no engine ran under --no-fallback"

# A `?` input dimension and no --input-shape: compiled once for the VM, whatever the extent.
cat >"$work/dyn.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(?, 2), float32]) {
  add(%x, %x)
}
RELAY
cat >"$work/static.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2), float32]) {
  %x
}
RELAY
expect 0 "an input file" -- "$tessera" run "$work/static.relay" --random-inputs 1 --output "$work/x.npy"
expect 0 "dynamic dimension compiles" -- "$tessera" run "$work/dyn.relay" --input x="$work/x.npy" --no-fallback
first_line "engine: compiled (VM)" "dynamic dimension: on the VM"
contains "$work/out" "Tensor[(1, 2), float32]" "dynamic dimension: the result's shape"

# Two independent `?` batches meeting in add: compiled once, assumed equal and checked when the
# program runs, so unequal inputs are an error naming the op and both extents (exit 1).
cat >"$work/two_batches.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(?, 2), float32], %y: Tensor[(?, 2), float32]) {
  add(%x, %y)
}
RELAY
cat >"$work/static3.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(3, 2), float32]) {
  %x
}
RELAY
expect 0 "a batch of 3" -- "$tessera" run "$work/static3.relay" --random-inputs 2 --output "$work/x3.npy"
expect 0 "equal batches" -- "$tessera" run "$work/two_batches.relay" --input x="$work/x3.npy" --input y="$work/x3.npy" --no-fallback
first_line "engine: compiled (VM)" "equal batches: on the VM"
contains "$work/out" "Tensor[(3, 2), float32]" "equal batches: the result's shape"
expect 1 "unequal batches" -- "$tessera" run "$work/two_batches.relay" --input x="$work/x.npy" --input y="$work/x3.npy"
contains "$work/err" "add: dimension 0 of the inputs differ at run time: 1 vs 3" "unequal batches: the error"

if [ "$failures" -ne 0 ]; then
  echo "cli_engine: $failures failure(s)"
  exit 1
fi
echo "cli_engine: all passed"
