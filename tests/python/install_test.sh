#!/usr/bin/env bash
# Installs the built package into a temporary site directory with scripts/install_python.sh and
# imports it from / with only that directory on the path. Usage: install_test.sh SOURCE BUILD
set -euo pipefail
source_dir="$1"
build_dir="$2"
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
bash "$source_dir/scripts/install_python.sh" --no-build --build-dir "$build_dir" --target "$site"
cd /
PYTHONPATH="$site" /usr/bin/python3 - "$site" <<'PY'
import sys
import numpy as np
import tessera
from tessera import relay
assert tessera.__file__.startswith(sys.argv[1]), tessera.__file__
x = relay.var("x", shape=(2,), dtype="float32")
mod = tessera.IRModule.from_expr(relay.Function([x], relay.add(x, x)))
out = relay.create_executor("debug", mod=mod).evaluate()(np.array([1, 2], "float32"))
assert out.numpy().tolist() == [2.0, 4.0], out
print("installed package imports from", tessera.__file__)
PY
