#!/usr/bin/env bash
# Usage: cli_tvmscript_test.sh TESSERA_BINARY SOURCE_DIR. `tessera tir FILE.py`: TVMScript read
# back (seed 002's MyModule as the seed writes it, and Tessera's own printed kernels), printed
# again unchanged; kernels listed, chosen and lowered; bad scripts exit 1 with a located error.
set -u
tessera="$1"
seed="$2/tests/data/tvmscript/seed002_my_module.py"
model="$2/tests/data/tir/dense_relu.relay"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"

expect 0 "read the seed's MyModule" -- "$tessera" tir "$seed" -o "$work/seed.py"
contains "$work/seed.py" "@I.ir_module" "a module"
contains "$work/seed.py" "def relu0(x: T.handle, y: T.handle):" "the seed's relu0"
contains "$work/seed.py" "T.reads(X[vi, vk], W[vj, vk])" "regions filled in"
contains "$work/seed.py" 'def main(x: R.Tensor((1, "m"), dtype="float32")' "the Relax main"
contains "$work/seed.py" 'out = R.call_dps_packed("linear0", (lv1, w1, b1), out_sinfo=R.Tensor((1, k), dtype="float32"))' "call_dps_packed"
expect 0 "print what was printed" -- "$tessera" tir "$work/seed.py" -o "$work/seed2.py"
cmp -s "$work/seed.py" "$work/seed2.py" || { echo "FAIL: seed module not printed back unchanged"; failures=$((failures + 1)); }

expect 0 "list the script's kernels" -- "$tessera" tir "$seed" --list
contains "$work/out" "relu0" "relu0 listed"
contains "$work/out" "linear0" "linear0 listed"
lacks "$work/out" "main" "Relax functions are not kernels"
expect 0 "lower one kernel" -- "$tessera" tir "$seed" --func linear0 --lower
contains "$work/out" "def linear0(" "linear0 printed"
lacks "$work/out" "T.block(" "no blocks after lowering"
lacks "$work/out" "relu0" "only the chosen kernel"

# Tessera's kernels of a model, printed, read back and printed again: the same text, before and
# after lowering.
for flags in "" "--default-schedule" "--default-schedule --lower"; do
  expect 0 "print kernels $flags" -- "$tessera" tir "$model" $flags -o "$work/k.py"
  expect 0 "read kernels $flags" -- "$tessera" tir "$work/k.py" -o "$work/k2.py"
  cmp -s "$work/k.py" "$work/k2.py" || { echo "FAIL: kernels $flags not printed back unchanged"; failures=$((failures + 1)); }
done

# Misuse exits 2; a bad script exits 1 with file:line:column, and writes nothing.
expect 2 "model flags on a script" -- "$tessera" tir "$seed" --params "$work/none.npz"
printf '@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    A[0] = B[0]\n' >"$work/bad.py"
expect 1 "undefined buffer" -- "$tessera" tir "$work/bad.py" -o "$work/none.py"
contains "$work/err" "bad.py:3:12: error[tvmscript]: undefined buffer 'B'" "located error"
[ -e "$work/none.py" ] && { echo "FAIL: output written on error"; failures=$((failures + 1)); }
printf '@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n  for i in range(4):\n      A[i] = T.float32(0.0)\n    A[0] = T.float32(1.0)\n' >"$work/indent.py"
expect 1 "inconsistent indentation" -- "$tessera" tir "$work/indent.py"
contains "$work/err" "indent.py:5:5: error[tvmscript]: unindent does not match" "indentation error"
printf '@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), "float32")):\n        return x\n' >"$work/relax_only.py"
expect 0 "a Relax-only script prints back" -- "$tessera" tir "$work/relax_only.py"
contains "$work/out" "def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):" "relax main"
expect 1 "a Relax-only script has no kernels to lower" -- "$tessera" tir "$work/relax_only.py" --lower
contains "$work/err" "no @T.prim_func" "no kernel"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "cli_tvmscript: all checks passed"
