#!/usr/bin/env bash
# Usage: cli_print_test.sh TESSERA_BINARY. `tessera run` prints a result as NumPy does: brackets
# nested as the shape, one innermost row per line, `...` past 1000 elements; compiled code and
# the interpreter print the same text, after the line naming the engine.
set -u
tessera="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# npy_i32 FILE SHAPE COUNT: an int32 .npy of the given shape (numpy's spelling, e.g. "(2, 3)")
# holding 0, 1, ..., COUNT-1.
npy_i32() {
  local header="{'descr': '<i4', 'fortran_order': False, 'shape': $2, }"
  while [ $(((10 + ${#header} + 1) % 64)) -ne 0 ]; do header="$header "; done
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $(((${#header} + 1) & 255)))\\x$(printf %02x $(((${#header} + 1) >> 8)))"
    printf '%s\n' "$header"
    for ((i = 0; i < $3; i++)); do
      printf "\\x$(printf %02x $((i & 255)))\\x$(printf %02x $((i >> 8)))\\x00\\x00"
    done
  } >"$1"
}

# check NAME SHAPE RELAY_SHAPE COUNT EXPECTED: runs copy(%x) on that input compiled and on the
# interpreter; both must print their engine line and then exactly EXPECTED.
check() {
  local name="$1" expected="$5"
  npy_i32 "$work/$name.npy" "$2" "$4"
  printf 'def @main(%%x: Tensor[%s, int32]) {\n  copy(%%x)\n}\n' "$3" >"$work/$name.relay"
  for engine in compiled interpreter; do
    local flags=()
    [ "$engine" = interpreter ] && flags=(--interpreter)
    if ! "$tessera" run "$work/$name.relay" --input x="$work/$name.npy" "${flags[@]}" \
      >"$work/out" 2>"$work/err"; then
      echo "FAIL: $name ($engine): exit $?"
      sed 's/^/  stderr: /' "$work/err" | head -5
      failures=$((failures + 1))
      continue
    fi
    # The first line names the engine (`engine: ...`); the result follows it.
    local engineLine="engine: compiled (graph executor)"
    [ "$engine" = interpreter ] && engineLine="engine: interpreter (asked: --interpreter)"
    if [ "$(head -n 1 "$work/out")" != "$engineLine" ]; then
      echo "FAIL: $name ($engine): first line is not '$engineLine'"
      head -n 1 "$work/out" | sed 's/^/  | /'
      failures=$((failures + 1))
    fi
    if [ "$(tail -n +2 "$work/out")" != "$expected" ]; then
      echo "FAIL: $name ($engine): printed"
      tail -n +2 "$work/out" | sed 's/^/  | /' | head -20
      echo "  expected"
      printf '%s\n' "$expected" | sed 's/^/  | /'
      failures=$((failures + 1))
    fi
  done
}

check scalar "()" "()" 1 'Tensor[(), int32]
0'
check vector "(4,)" "(4)" 4 'Tensor[(4), int32]
[0, 1, 2, 3]'
check matrix "(2, 3)" "(2, 3)" 6 'Tensor[(2, 3), int32]
[[0, 1, 2],
 [3, 4, 5]]'
check cube "(2, 2, 3)" "(2, 2, 3)" 12 'Tensor[(2, 2, 3), int32]
[[[ 0,  1,  2],
  [ 3,  4,  5]],

 [[ 6,  7,  8],
  [ 9, 10, 11]]]'
check large "(3, 500)" "(3, 500)" 1500 'Tensor[(3, 500), int32]
[[   0,    1,    2, ...,  497,  498,  499],
 [ 500,  501,  502, ...,  997,  998,  999],
 [1000, 1001, 1002, ..., 1497, 1498, 1499]]'

if [ "$failures" -ne 0 ]; then
  echo "cli_print: $failures failure(s)"
  exit 1
fi
echo "cli_print: all checks passed"
