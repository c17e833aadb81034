#!/usr/bin/env bash
# The README's first command: installs dependencies, builds Tessera and runs its main job on the
# embedded default example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh release tessera
./build/release/tools/tessera/tessera demo
