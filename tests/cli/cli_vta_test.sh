#!/usr/bin/env bash
# Usage: cli_vta_test.sh TESSERA RECORDER. Records seed 004's conv program, simulates it through the
# CLI and checks the exact counters the seed prints; then the timing model's report, the
# --vta-stats and --vta-trace outputs and 1 vs 2 virtual threads; then malformed-program
# diagnostics.
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

# --vta-stats prints the seed's block verbatim (header, then one counter per line), then the timing.
"$tessera" vta sim "$work/conv.vtaprog" --vta-stats --vta-trace "$work/trace.json" >"$work/vstats" \
  || fail "vta sim --vta-stats --vta-trace exited non-zero"
printf 'Execution statistics:\n\tinp_load_nbytes :           114688\n\twgt_load_nbytes :          1179648\n\tacc_load_nbytes :                0\n\tuop_load_nbytes :             1144\n\tout_store_nbytes:            50176\n\tgemm_counter    :           451584\n\talu_counter     :             9408\n' >"$work/seed_block"
head -n 8 "$work/vstats" | cmp -s - "$work/seed_block" || { cat "$work/vstats"; fail "--vta-stats block differs from the seed's"; }
grep -Eq "^	total_cycles    : +576060$" "$work/vstats" || { cat "$work/vstats"; fail "total cycles (2 threads)"; }
grep -Eq "^	compute +94 +474416 +82\.4%" "$work/vstats" || { cat "$work/vstats"; fail "compute row"; }
grep -q "gemm_utilisation: *78.4%" "$work/vstats" || fail "GEMM utilisation (2 threads)"
grep -q "critical path   : 3220 instructions" "$work/vstats" || fail "critical path"
# The trace is Chrome trace JSON: named module tracks and one complete event per instruction.
/usr/bin/python3 - "$work/trace.json" <<'PY' || fail "trace file"
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert names == {1: "load", 2: "compute", 3: "store", 4: "critical path"}, names
insns = [e for e in ev if e["ph"] == "X" and e["cat"] == "insn"]
assert len(insns) == 3366, len(insns)
assert max(e["ts"] + e["dur"] for e in insns) == 576060
assert all("index" in e["args"] and "insn" in e["args"] for e in insns)
PY
# Counters do not depend on the timing flags; --json carries the timing next to them.
"$tessera" vta sim "$work/conv.vtaprog" --json >"$work/json" || fail "vta sim --json"
grep -q '"gemm_counter": 451584' "$work/json" || fail "json counters"
grep -q '"timing": {"total_cycles":576060' "$work/json" || { cat "$work/json"; fail "json timing"; }
# Without virtual threads the same convolution is slower and the GEMM core less busy.
"$recorder" "$work/conv1.vtaprog" --threads 1 >/dev/null || fail "recorder --threads 1 failed"
"$tessera" vta sim "$work/conv1.vtaprog" >"$work/stats1" || fail "vta sim (1 thread)"
grep -Eq "gemm_counter.*451584" "$work/stats1" || fail "1-thread gemm counter"
grep -Eq "^	total_cycles    : +778626$" "$work/stats1" || { cat "$work/stats1"; fail "total cycles (1 thread)"; }
grep -q "gemm_utilisation: *58.0%" "$work/stats1" || fail "GEMM utilisation (1 thread)"
"$tessera" vta disasm "$work/conv.vtaprog" --vta-stats 2>/dev/null; [ $? -eq 2 ] || fail "--vta-stats on disasm not a usage error"

head -c 100 "$work/conv.vtaprog" >"$work/truncated.vtaprog"
"$tessera" vta sim "$work/truncated.vtaprog" 2>"$work/err" && fail "truncated program accepted"
grep -q "truncated.vtaprog" "$work/err" || fail "truncated program not named in the diagnostic"
"$tessera" vta sim "$work/missing.vtaprog" 2>/dev/null && fail "missing program accepted"
"$tessera" vta frob "$work/conv.vtaprog" 2>/dev/null; [ $? -eq 2 ] || fail "unknown action not a usage error"
echo "cli_vta_test: all checks passed"
