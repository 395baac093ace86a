#!/usr/bin/env bash
# Builds fabdiag and runs every test (unit, golden, CLI table, integration on the emulated
# cluster). Integration tests that cannot run here print "SKIPPED: reason". Then the sanitizer
# and fuzz stage (scripts/test-sanitize.sh: the suite again under ASan+UBSan, every fuzz target
# for FABDIAG_FUZZ_SECONDS), unless ctest arguments were given (a filtered run) or
# FABDIAG_SANITIZE_STAGE=0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
build=${FABDIAG_BUILD_DIR:-$root/build}
# -j: the unit tests share the cores; the integration tests (RUN_SERIAL) still run alone.
(cd "$build" && ctest --output-on-failure -j "${FABDIAG_CTEST_JOBS:-2}" "$@")
if [ $# -gt 0 ] || [ "${FABDIAG_SANITIZE_STAGE:-1}" = 0 ]; then
  echo "test.sh: sanitizer and fuzz stage not run (ctest arguments or FABDIAG_SANITIZE_STAGE=0); run scripts/test-sanitize.sh"
  exit 0
fi
bash "$root/scripts/test-sanitize.sh"
