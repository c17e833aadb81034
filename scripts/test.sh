#!/usr/bin/env bash
# The README's second command: installs dependencies, builds, and runs the whole default test suite:
# the fast CTest labels in a release build, the same suite under ASan+UBSan, the source checks
# (layering, file sizes), the ONNX conformance suite, the fuzz targets for a fixed number of
# iterations, and the real models
# (tests/models/: PyTorch-exported ONNX models compiled and compared with PyTorch, label `models`).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's start is stamped with the seconds since the script began (CI's budget is 90 min).
stage() { echo "== [$(( SECONDS / 60 ))m$(( SECONDS % 60 ))s] $*"; }
bash scripts/install_deps.sh
# PyTorch and its peers up front: the release suite's Python frontend tests (python_frontend_pytorch)
# compare with PyTorch, and pytest fails a file whose only test is skipped for want of it.
bash scripts/install_model_deps.sh

# The two builds take about 6 GiB (release and ASan+UBSan, whose clang build also holds the libFuzzer
# targets; CMakePresets.json says why each compiles as it does): say so up front rather
# than fail in a linker with "No space left on device" (the CI run of 2026-11-30 did).
free_gib=$(( $(df -Pk . | awk 'NR == 2 {print $4}') / 1024 / 1024 ))
if [ "$free_gib" -lt 10 ]; then
  echo "warning: $free_gib GiB free on $(df -P . | awk 'NR == 2 {print $6}'); the builds need about 6 GiB" >&2
fi

stage "source checks"
python3 scripts/check_layering.py
python3 scripts/check_file_sizes.py

stage "release build + tests"
bash scripts/build.sh release
ctest --test-dir build/release --output-on-failure -LE slow -j2

# Sanitized binaries run in TESSERA_TEST_SHARDS gtest shards each, not a process per case
# (tests/CMakeLists.txt: startup under ASan is about a second).
stage "ASan + UBSan build + tests"
bash scripts/build.sh asan-ubsan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan-ubsan --output-on-failure -LE slow -j2

# Fails on any wrong result, any crash, a test that stopped passing, and a test recorded as
# compiled that now falls back to the interpreter (run_conformance.py's docstring).
stage "ONNX conformance suite (label onnx-conformance): libonnx-testdata, compiled and interpreted"
ctest --test-dir build/release -L onnx-conformance --output-on-failure

stage "fuzz targets (fixed iteration count; the ASan+UBSan build's libFuzzer binaries)"
bash scripts/fuzz.sh 20000

stage "real models (label models): ResNet-18/50, MobileNetV2, transformer vs PyTorch"
/usr/bin/python3 tests/models/make_models.py
ctest --test-dir build/release -L models --output-on-failure
