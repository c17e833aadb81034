#!/usr/bin/env bash
# Builds the Python package (the release preset's extension `tessera._core` and the `tessera`
# package in build/release/python/tessera) and installs a copy into a site-packages directory of
# Debian's /usr/bin/python3, by default /usr/local/lib/python3.X/dist-packages (on its sys.path),
# after which `/usr/bin/python3 -c "import tessera"` works from any directory. A copy, not a link:
# rebuilding the tree does not change an installed package under a running program.
#
# Usage: scripts/install_python.sh [--no-build] [--build-dir DIR] [--target SITE_DIR]
#   --no-build   install what DIR already holds (the CTest install test uses it)
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
build_dir=build/release
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --build-dir) build_dir="$2"; shift ;;
    --target) target="$2"; shift ;;
    *) echo "usage: $0 [--no-build] [--build-dir DIR] [--target SITE_DIR]" >&2; exit 2 ;;
  esac
  shift
done
if [ "$build" = 1 ]; then
  bash scripts/install_deps.sh
  bash scripts/build.sh release tessera_python
fi
package="$build_dir/python/tessera"
if [ ! -f "$package/__init__.py" ] || ! ls "$package"/_core*.so >/dev/null 2>&1; then
  echo "install_python: no built package in $package (build the target tessera_python)" >&2
  exit 1
fi
if [ -z "$target" ]; then
  target=$(/usr/bin/python3 -c \
    'import sys; print(f"/usr/local/lib/python3.{sys.version_info.minor}/dist-packages")')
fi
SUDO=""
if [ ! -w "$(dirname "$target")" ] && [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO mkdir -p "$target"
$SUDO rm -rf "$target/tessera"
$SUDO cp -r "$package" "$target/tessera"
$SUDO find "$target/tessera" -name __pycache__ -prune -exec rm -rf {} +
echo "install_python: installed tessera into $target"
