#!/usr/bin/env bash
# Configures and builds fabdiag into ./build (or $FABDIAG_BUILD_DIR). Prints the binary's path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FABDIAG_BUILD_DIR:-$root/build}
type=${FABDIAG_BUILD_TYPE:-RelWithDebInfo}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE="$type" >&2
fi
cmake --build "$build" -j "$(nproc)" >&2
echo "$build/fabdiag"
