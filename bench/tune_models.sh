#!/usr/bin/env bash
# Issue 26's model target: `tessera tune` on ResNet-50 and MobileNetV2 (batch 1, the models of
# tests/models/make_models.py) for at most TRIALS trials per model and thread count, timed, then
# the default build, the tuned build (`tessera compile --db`) and ONNX Runtime side by side in
# one run_peers.py run per thread count (bench/peers/README.md: interleaved blocks, medians).
# Databases: WORK_DIR/t<THREADS>/<model>; reports: WORK_DIR/peers-t<THREADS>.md and the tuning
# logs beside them.
# Usage: bench/tune_models.sh WORK_DIR [TRIALS (2000)] [THREADS (1 2)] [MODELS (resnet50
# mobilenet_v2)]   e.g. bench/tune_models.sh /tmp/tm 2000 "1 2" "mobilenet_v2"
# RUN_PEERS_ARGS adds options to run_peers.py (e.g. "--runs 60"); TUNE_ARGS to `tessera tune`
# (e.g. "--number 1 --repeat 10 --min-repeat-ms 0 --cache-flush-bytes 268435456": every timed
# call starts with cold caches, as a layer of the model reads its weights).
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$1"
trials="${2:-2000}"
threads_list="${3:-1 2}"
models="${4:-resnet50 mobilenet_v2}"
cache="${TESSERA_MODEL_CACHE:-$HOME/.cache/tessera-models}"
mkdir -p "$work"
cp "$root/build/release/tools/tessera/tessera" "$work/tessera"  # a rebuild cannot change it
/usr/bin/python3 "$root/tests/models/make_models.py" --out "$cache" $models >/dev/null
grep -m1 'cpu family' /proc/cpuinfo
for threads in $threads_list; do
  for m in $models; do
    db="$work/t$threads/$m"
    mkdir -p "$db"
    start=$(date +%s)
    min_repeat="--min-repeat-ms 50"  # unless TUNE_ARGS gives its own
    case "${TUNE_ARGS:-}" in *--min-repeat-ms*) min_repeat="" ;; esac
    # shellcheck disable=SC2086  # TUNE_ARGS and min_repeat are lists of words
    TESSERA_NUM_THREADS="$threads" "$work/tessera" tune "$cache/$m.onnx" --trials "$trials" \
      --db "$db" --threads "$threads" --trials-per-round 32 $min_repeat ${TUNE_ARGS:-} \
      >"$work/tune-$m-t$threads.log" 2>&1
    echo "$m, $threads thread(s): $trials trials in $(($(date +%s) - start)) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
    grep -A3 "^Default vs tuned" "$work/tune-$m-t$threads.log" | tail -n +1 | head -2 || true
  done
  # shellcheck disable=SC2086
  /usr/bin/python3 "$root/bench/peers/run_peers.py" --models "$(echo $models | tr ' ' ,)" \
    --engines tessera,tessera_tuned,ort --threads "$threads" --tune-db "$work/t$threads" \
    --tessera "$work/tessera" --out "$work/peers-t$threads.md" ${RUN_PEERS_ARGS:-}
done
