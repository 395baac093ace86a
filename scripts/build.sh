#!/usr/bin/env bash
# Configures and builds fabdiag into ./build (or $FABDIAG_BUILD_DIR). Prints the binary's path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FABDIAG_BUILD_DIR:-$root/build}
type=${FABDIAG_BUILD_TYPE:-RelWithDebInfo}
target=${FABDIAG_BUILD_TARGET:-all}   # "fabdiag-main" builds only what the main job runs
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
# ccache (when installed) makes rebuilds and CI re-runs on the same machine cheap; paths are
# taken relative to the tree so two checkouts share the cache.
if command -v ccache >/dev/null && [ -z "${FABDIAG_NO_CCACHE:-}" ]; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$root"
fi
# FABDIAG_CMAKE_ARGS: more configure arguments (scripts/test-sanitize.sh passes
# the compiler and FABDIAG_SANITIZE / FABDIAG_FUZZ); used when the build folder is configured.
read -r -a extra <<<"${FABDIAG_CMAKE_ARGS:-}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE="$type" "${extra[@]}" >&2
fi
cmake --build "$build" -j "$(nproc)" --target "$target" >&2
echo "$build/fabdiag"
