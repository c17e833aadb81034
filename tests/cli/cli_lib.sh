# Helpers the CLI test scripts share (sourced after they set $work, a scratch directory, and
# failures=0): run a command expecting an exit code, and look for text in a file (or its absence).
# expect CODE WHAT -- COMMAND...: runs COMMAND with stdout in $work/out and stderr in $work/err.
# contains FILE TEXT WHAT: TEXT occurs in FILE.
expect() {
  local want="$1" what="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/  stderr: /' "$work/err" | head -5
    failures=$((failures + 1))
  fi
}
contains() {
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: $3: '$2' not found"
    sed 's/^/  | /' "$1" | head -8
    failures=$((failures + 1))
  fi
}
# lacks FILE TEXT WHAT: TEXT does not occur in FILE.
lacks() {
  if grep -qF -- "$2" "$1"; then
    echo "FAIL: $3: '$2' present"
    failures=$((failures + 1))
  fi
}
