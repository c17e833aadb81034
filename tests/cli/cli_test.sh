#!/usr/bin/env bash
# Usage: cli_test.sh TESSERA_BINARY TEST_DIR. Checks exit codes and diagnostics of the CLI.
set -u
tessera="$1"
dir="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

expect 0 "top-level help" -- "$tessera" --help
contains "$work/out" "print FILE" "help lists print"
expect 2 "no command" -- "$tessera"
expect 2 "unknown command" -- "$tessera" frobnicate
for cmd in print run demo vta opt; do
  expect 0 "$cmd --help" -- "$tessera" "$cmd" --help
  contains "$work/out" "usage: tessera $cmd" "$cmd help text"
done
expect 2 "print without a file" -- "$tessera" print
expect 2 "print with an unknown option" -- "$tessera" print "$dir/mlp.relay" --bogus

expect 0 "print a module" -- "$tessera" print "$dir/mlp.relay"
contains "$work/out" "nn.dense(%x, %w, units=None) /* ty=Tensor[(1, 3), float32] */" "printed types"
expect 0 "print --metadata round trip" -- "$tessera" print "$dir/mlp.relay" --metadata -o "$work/rt.relay"
expect 0 "print the round-tripped file" -- "$tessera" print "$work/rt.relay"

expect 1 "missing file" -- "$tessera" print "$work/nope.relay"
contains "$work/err" "nope.relay" "missing file is named"
printf 'def @main(%%x: Tensor[(2), float32]) {\n  nn.relu(%%x,\n}\n' >"$work/bad.relay"
expect 1 "syntax error" -- "$tessera" print "$work/bad.relay"
contains "$work/err" "bad.relay:3:" "syntax error has line:column"
printf 'def @main(%%x: Tensor[(2), float32]) {\n  nn.conv9d(%%x)\n}\n' >"$work/unknown.relay"
expect 1 "unknown op" -- "$tessera" print "$work/unknown.relay"
contains "$work/err" "nn.conv9d" "unknown op is named"
head -c 3000 /dev/urandom >"$work/garbage.relay"
expect 1 "binary garbage" -- "$tessera" print "$work/garbage.relay"

expect 0 "run with random inputs" -- "$tessera" run "$dir/mlp.relay" --random-inputs 7 --output "$work/y.npy"
test -s "$work/y.npy" || { echo "FAIL: output file not written"; failures=$((failures + 1)); }
expect 0 "run prints the result" -- "$tessera" run "$dir/mlp.relay" --random-inputs 7
contains "$work/out" "Tensor[(1, 3), float32]" "result type printed"
expect 1 "missing inputs" -- "$tessera" run "$dir/mlp.relay"
contains "$work/err" "%x: Tensor[(1, 4), float32]" "missing input listed with its type"
expect 1 "wrong input shape" -- "$tessera" run "$dir/mlp.relay" --input x="$work/y.npy" --random-inputs 1
contains "$work/err" "%x" "shape error names the parameter"
expect 1 "unknown input name" -- "$tessera" run "$dir/mlp.relay" --input q="$work/y.npy" --random-inputs 1
expect 2 "malformed --input" -- "$tessera" run "$dir/mlp.relay" --input x
expect 1 "unwritable output" -- "$tessera" run "$dir/mlp.relay" --random-inputs 1 --output /nonexistent-dir/y.npy
printf 'not an npy file' >"$work/bad.npy"
expect 1 "malformed npy" -- "$tessera" run "$dir/mlp.relay" --input x="$work/bad.npy" --random-inputs 1
contains "$work/err" "bad.npy" "malformed npy is named"

expect 0 "opt with the default pipeline" -- "$tessera" opt "$dir/mlp.relay"
contains "$work/out" "Primitive=1" "the pipeline fuses"
expect 0 "opt with named passes" -- "$tessera" opt "$dir/mlp.relay" --passes CanonicalizeOps --opt-level 0
contains "$work/out" "add(%0, %b)" "CanonicalizeOps ran although the opt level is 0"
expect 0 "opt --print-after" -- "$tessera" opt "$dir/mlp.relay" --print-after FuseOps --time-passes
contains "$work/err" "// after FuseOps" "print-after output"
contains "$work/err" "FuseOps:" "time-passes output"
expect 1 "opt with an unknown pass" -- "$tessera" opt "$dir/mlp.relay" --passes FoldEverything
contains "$work/err" "FoldEverything" "unknown pass is named"
expect 2 "opt with a bad level" -- "$tessera" opt "$dir/mlp.relay" --opt-level 9
expect 0 "opt --list-passes" -- "$tessera" opt --list-passes
contains "$work/out" "FuseOps (level 0)" "pass list"
# bfloat16 I/O: float32 .npy in (rounded to nearest even: 1.00390625 -> 1), float32 .npy out.
for engine in "" --interpreter; do
  expect 0 "bfloat16 parameter from float32 data $engine" -- "$tessera" run "$dir/bfloat16_square.relay" \
    --input x="$dir/bfloat16_input.npy" $engine
  contains "$work/out" "[   1,    1,    9, 6.25]" "bfloat16 result $engine"
  expect 0 "bfloat16 result saved $engine" -- "$tessera" run "$dir/bfloat16_square.relay" \
    --input x="$dir/bfloat16_input.npy" --output "$work/bf.npy" $engine
  expect 0 "saved bfloat16 result reads back $engine" -- "$tessera" run "$dir/bfloat16_square.relay" \
    --input x="$work/bf.npy" $engine
  contains "$work/out" "81" "bfloat16 round trip $engine"
done

expect 0 "run without optimization" -- "$tessera" run "$dir/mlp.relay" --random-inputs 7 --no-optimize --output "$work/y0.npy"
# Bitwise equality holds on the interpreter; compiled code is compared with a tolerance in
# cli_build_test.sh.
expect 0 "run optimized on the interpreter" -- "$tessera" run "$dir/mlp.relay" --random-inputs 7 --interpreter --output "$work/y1.npy"
cmp -s "$work/y1.npy" "$work/y0.npy" || { echo "FAIL: optimized and unoptimized runs differ"; failures=$((failures + 1)); }

expect 0 "demo" -- "$tessera" demo
contains "$work/out" "nn.conv2d" "demo prints the module"
contains "$work/out" "Primitive=1" "demo prints the optimized module"
contains "$work/out" "outputs agree" "demo compares optimized and original outputs"

if [ "$failures" -ne 0 ]; then
  echo "cli_test: $failures failure(s)"
  exit 1
fi
echo "cli_test: all checks passed"
