#!/usr/bin/env bash
# Builds fabdiag and runs every test (unit, golden, CLI table, integration on the emulated
# cluster). Integration tests that cannot run here print "SKIPPED: reason".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
build=${FABDIAG_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure "$@"
