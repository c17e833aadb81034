#!/usr/bin/env bash
# Usage: cli_tune_test.sh TESSERA_BINARY SOURCE_DIR. `tessera tune` on a small dense model (a
# few trials, with --curve's CSV), then `tessera compile --db` / `tessera run --db` apply the best
# schedule with the same output as the default; `tessera tir --tune`; a corrupt database line and
# a target without num-cores are clear messages.
set -u
tessera="$1"
data="$2/tests/data/tune"
model="$data/dense.relay"
params="$data/dense_w.npz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

source "$(dirname "$0")/cli_lib.sh"
fast=(--min-repeat-ms 0 --trials-per-round 4 --threads 1)

expect 0 "tune --help" -- "$tessera" tune --help
contains "$work/out" "usage: tessera tune MODEL --trials N --db DIR" "tune help"

expect 0 "tune a dense" -- "$tessera" tune "$model" --params "$params" --trials 8 --db "$work/db" --builders 2 "${fast[@]}" --curve "$work/curve.csv"
contains "$work/out" "Task #0: \"fused_nn_dense_nn_relu\"" "the task"
contains "$work/out" "[Task #0: fused_nn_dense_nn_relu] Trial #7: " "eight trials"
contains "$work/out" " ID |                   Name |  FLOP | Weight | Speed (GFLOPS) |" "the table"
contains "$work/out" "Total trials: 8" "the total"
contains "$work/out" "[progress] elapsed " "the progress line"
contains "$work/out" "fused_nn_dense_nn_relu: default " "default vs tuned"
[ "$(wc -l <"$work/db/database_tuning_record.json")" -eq 8 ] || {
  echo "FAIL: eight records"
  failures=$((failures + 1))
}

# --curve: the header, then one row per trial (the run's count, the task's, the times).
[ "$(head -1 "$work/curve.csv")" = "trial,task,task_trial,seconds,best_seconds_task,elapsed_s" ] || {
  echo "FAIL: the curve's header"
  failures=$((failures + 1))
}
[ "$(wc -l <"$work/curve.csv")" -eq 9 ] || {
  echo "FAIL: eight curve rows"
  failures=$((failures + 1))
}
grep -q '^7,fused_nn_dense_nn_relu,7,[0-9.e+-]*,[0-9.e+-]\+,[0-9.]\+$' "$work/curve.csv" || {
  echo "FAIL: the last curve row"
  cat "$work/curve.csv"
  failures=$((failures + 1))
}

# Built for two cores, records measured for one do not apply, and the note says why.
expect 0 "compile --db for 2 cores" -- env TESSERA_NUM_THREADS=2 "$tessera" compile "$model" --params "$params" -o "$work/other" --db "$work/db"
contains "$work/err" "tuning database $work/db: 0 of 1 kernels tuned" "records of another target skipped"
contains "$work/err" "-num-cores=1) than this build's (" "the records' target named"
contains "$work/err" "-num-cores=2): give --target" "the build's target named"

export TESSERA_NUM_THREADS=1  # the thread count the records were made for
expect 0 "compile --db" -- "$tessera" compile "$model" --params "$params" -o "$work/tuned" --db "$work/db"
contains "$work/err" "tuning database $work/db: 1 of 1 kernels tuned" "the tuned kernel applied"
expect 0 "compile default" -- "$tessera" compile "$model" --params "$params" -o "$work/default"
expect 0 "run tuned" -- "$tessera" run "$work/tuned" --random-inputs 3
cp "$work/out" "$work/tuned.txt"
expect 0 "run default" -- "$tessera" run "$work/default" --random-inputs 3
cmp -s "$work/out" "$work/tuned.txt" || {
  echo "FAIL: the tuned build prints another result"
  diff "$work/out" "$work/tuned.txt" | head -5
  failures=$((failures + 1))
}

# A line cut short (a run killed mid-write) is reported; the records before it stay.
printf '[0,[[[["GetBlock"' >>"$work/db/database_tuning_record.json"
expect 0 "compile with a corrupt line" -- "$tessera" compile "$model" --params "$params" -o "$work/t2" --db "$work/db"
contains "$work/err" "database_tuning_record.json:9: corrupt tuning record skipped" "corrupt line reported"
contains "$work/err" "1 of 1 kernels tuned" "the records before it still apply"

# A resumed run measures nothing twice and appends after the cut line.
expect 0 "tune again" -- "$tessera" tune "$model" --params "$params" --trials 4 --db "$work/db" "${fast[@]}"
contains "$work/out" "8 record(s) from the database" "resumed"
[ "$(grep -c '^\[0,.*\]\]$' "$work/db/database_tuning_record.json")" -eq 12 ] || {
  echo "FAIL: twelve records after resuming"
  failures=$((failures + 1))
}

# --number 1 --repeat 3 with a cache flush: three cold calls, each its own run time.
expect 0 "tune with cold calls" -- "$tessera" tune "$model" --params "$params" --trials 2 --db "$work/db6" --threads 1 --trials-per-round 2 --number 1 --repeat 3 --min-repeat-ms 0 --cache-flush-bytes 1048576
[ "$(grep -c '\]\],\[[0-9.e+-]*,[0-9.e+-]*,[0-9.e+-]*\],{' "$work/db6/database_tuning_record.json")" -ge 1 ] || {
  echo "FAIL: --repeat 3: three run times in a record"
  head -c 300 "$work/db6/database_tuning_record.json"
  failures=$((failures + 1))
}
expect 2 "number must be positive" -- "$tessera" tune "$model" --trials 2 --db "$work/db3" --number 0
contains "$work/err" "--number expects an integer of at least 1" "number message"

expect 2 "builders must be positive" -- "$tessera" tune "$model" --trials 2 --db "$work/db3" --builders 0
contains "$work/err" "--builders expects an integer of at least 1" "builders message"
# A build outliving --build-timeout is killed and costs its candidate only; the run goes on.
expect 0 "builds that time out" -- "$tessera" tune "$model" --params "$params" --trials 2 --db "$work/db4" --build-timeout 0.001 "${fast[@]}"
contains "$work/out" "Trial #1: Error in building: timed out after 0.001 s" "build timeout reported"
expect 0 "tune with the analytic model" -- "$tessera" tune "$model" --params "$params" --trials 4 --db "$work/db5" --cost-model analytic "${fast[@]}"
contains "$work/out" "with the analytic cost model" "the analytic model named"

expect 0 "tir --tune" -- "$tessera" tir "$model" --params "$params" --func fused_nn_dense_nn_relu --tune --trials 2 --db "$work/db2" "${fast[@]}"
contains "$work/out" "def fused_nn_dense_nn_relu(" "the tuned kernel printed"
expect 0 "tir --tune --curve" -- "$tessera" tir "$model" --params "$params" --func fused_nn_dense_nn_relu --tune --trials 2 --db "$work/db4" "${fast[@]}" --curve "$work/curve2.csv"
[ "$(wc -l <"$work/curve2.csv")" -eq 3 ] || {
  echo "FAIL: tir --tune --curve: two rows"
  failures=$((failures + 1))
}

expect 1 "target without num-cores" -- "$tessera" tune "$model" --trials 2 --db "$work/db3" --target llvm
contains "$work/err" 'Target does not have attribute "num-cores", physical core number must be defined!' "TVM's message"
expect 2 "tune without --db" -- "$tessera" tune "$model" --trials 2
contains "$work/err" "--db DIR is required" "usage"

[ "$failures" -eq 0 ] && echo "cli_tune: all passed"
exit "$failures"
