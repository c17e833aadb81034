#!/usr/bin/env bash
# Seed 002's plain 128^3 matmul tuned from the rule-made spaces (64 trials, TVM's default
# evaluator) with the random and the analytic cost model, one database per model and seed, then
# every database's best kernel timed in one process alternately with the FMA peak loop
# (tuning_spaces_bench). One thread, pinned to the last CPU. Results:
# bench/results/*-tuning-spaces.md, *-analytic-model.md.
# Usage: bench/tuning_spaces.sh BUILD_DIR WORK_DIR [SEED...]   (seeds default: 0 1 2 3 4)
set -eu
build="$1"
work="$2"
shift 2
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(0 1 2 3 4)
cpu=$(($(nproc) - 1))
export TESSERA_NUM_THREADS=1
mkdir -p "$work"
grep -m1 'cpu family' /proc/cpuinfo
grep -m1 'model name' /proc/cpuinfo
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
dbs=()
for s in "${seeds[@]}"; do
  for model in random analytic; do
    db="$work/$model-seed$s"
    rm -rf "$db"
    taskset -c "$cpu" "$build/examples/tune_matmul/tune_matmul" "$db" --rules --seed "$s" \
      --cost-model "$model" >"$db.log" 2>&1
    echo "$model seed $s: best during tuning $(grep -o 'Best GFLOPs: [0-9.]*' "$db.log" | tail -1)"
    dbs+=("$db")
  done
done
taskset -c "$cpu" "$build/bench/tuning_spaces_bench" "${dbs[@]}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
