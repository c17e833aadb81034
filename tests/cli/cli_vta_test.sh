#!/usr/bin/env bash
# Usage: cli_vta_test.sh TESSERA RECORDER. Records seed 004's conv program, simulates it through the
# CLI and checks the exact counters the seed prints; then checks malformed-program diagnostics.
set -u
tessera="$1"
recorder="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$recorder" "$work/conv.vtaprog" >/dev/null || fail "recorder failed"
"$tessera" vta sim "$work/conv.vtaprog" >"$work/stats" 2>&1 || fail "vta sim exited non-zero"
for counter in "inp_load_nbytes.*114688" "wgt_load_nbytes.*1179648" "acc_load_nbytes.*\b0\b" \
    "uop_load_nbytes.*1144" "out_store_nbytes.*50176" "gemm_counter.*451584" "alu_counter.*9408"; do
  grep -Eq "$counter" "$work/stats" || { cat "$work/stats"; fail "counter $counter"; }
done
"$tessera" vta disasm "$work/conv.vtaprog" >"$work/disasm" || fail "vta disasm exited non-zero"
[ "$(grep -c . "$work/disasm")" -ge 3366 ] || fail "disassembly shorter than 3366 instructions"
head -c 100 "$work/conv.vtaprog" >"$work/truncated.vtaprog"
"$tessera" vta sim "$work/truncated.vtaprog" 2>"$work/err" && fail "truncated program accepted"
grep -q "truncated.vtaprog" "$work/err" || fail "truncated program not named in the diagnostic"
"$tessera" vta sim "$work/missing.vtaprog" 2>/dev/null && fail "missing program accepted"
"$tessera" vta frob "$work/conv.vtaprog" 2>/dev/null; [ $? -eq 2 ] || fail "unknown action not a usage error"
echo "cli_vta_test: all checks passed"
