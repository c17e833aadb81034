#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a fixed number of iterations from its seed
# corpus. Usage: scripts/fuzz.sh [RUNS]. The graph fuzzer compiles every input it generates, so it
# runs RUNS/400 iterations (50 for the default, about a minute; docs/user/fuzzing.md).
# TESSERA_FUZZ_PRESET picks the build: asan-ubsan (default; the sanitized test build, -O1, which CI
# builds anyway) or fuzz (the targets alone at -O2, faster per input, for long campaigns).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20000}"
preset="${TESSERA_FUZZ_PRESET:-asan-ubsan}"
out="build/$preset"
bash scripts/build.sh "$preset" parser_fuzz npy_fuzz onnx_fuzz graph_fuzz tvmscript_fuzz
for target in parser npy onnx graph tvmscript; do
  target_runs="$runs"
  timeout=10
  if [ "$target" = graph ]; then
    target_runs=$(( runs / 400 > 0 ? runs / 400 : 1 ))
    timeout=60
  fi
  work="$out/corpus-$target"
  mkdir -p "$work"
  echo "-- ${target}_fuzz: $target_runs runs"
  log="$out/${target}_fuzz.log"
  if ! "./$out/tests/fuzz/${target}_fuzz" -runs="$target_runs" -max_len=4096 -timeout="$timeout" \
      -rss_limit_mb=4096 -artifact_prefix="$out/${target}-" "$work" "tests/fuzz/corpus/$target" \
      >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz.sh: ${target}_fuzz found a failure (input saved under $out/${target}-*)"
    exit 1
  fi
  tail -n 1 "$log"
done
