#!/usr/bin/env bash
# Installs the Debian packages named in its arguments that are missing (sudo when not root).
# Usage: scripts/apt_install.sh LABEL PACKAGE...   LABEL prefixes the messages. A package `npm`
# counts as present when the npm command exists: NodeSource's nodejs bundles npm and conflicts
# with Debian's npm package. Idempotent: with everything present it costs one dpkg query each.
set -euo pipefail
label="$1"
shift

isPresent() {
  if [ "$1" = npm ] && command -v npm >/dev/null 2>&1; then return 0; fi
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for p in "$@"; do
  if ! isPresent "$p"; then missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$label: all $# Debian packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "$label: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
