#!/usr/bin/env bash
# Builds fabdiag and runs every test (unit, golden, CLI table, integration on the emulated
# cluster). Integration tests that cannot run here print "SKIPPED: reason". Then the sanitizer
# and fuzz stage (scripts/test-sanitize.sh: the suite again under ASan+UBSan, every fuzz target
# for FABDIAG_FUZZ_SECONDS), unless ctest arguments were given (a filtered run) or
# FABDIAG_SANITIZE_STAGE=0.
#
# The sanitizer build runs beside the normal ctest, at the lowest CPU priority (nice 19): the
# emulated-cluster tests spend most of their ~15 minutes waiting on throttled links, and that
# idle CPU compiles the clang build, which keeps the whole script inside CI's 90 minutes on 2
# cores. Its output goes to BUILD-SANITIZE/build.log; a failed build fails the script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
build=${FABDIAG_BUILD_DIR:-$root/build}
sanitize=1
if [ $# -gt 0 ] || [ "${FABDIAG_SANITIZE_STAGE:-1}" = 0 ]; then sanitize=0; fi

san_dir=${FABDIAG_SANITIZE_BUILD_DIR:-$root/build-sanitize}
san_log=$san_dir/build.log
san_pid=""
if [ "$sanitize" = 1 ]; then
  mkdir -p "$san_dir"
  # Its own process group (setsid), so an early exit or Ctrl-C here stops the whole build.
  setsid nice -n 19 bash "$root/scripts/test-sanitize.sh" build >"$san_log" 2>&1 &
  san_pid=$!
  trap '[ -z "$san_pid" ] || kill -- "-$san_pid" 2>/dev/null || true' EXIT
  echo "test.sh: the sanitizer build runs beside the tests (nice 19; log $san_log)"
fi
# -j: the unit tests share the cores; the integration tests (RUN_SERIAL) still run alone.
rc=0
(cd "$build" && ctest --output-on-failure -j "${FABDIAG_CTEST_JOBS:-2}" "$@") || rc=$?
if [ "$sanitize" = 0 ]; then
  [ "$rc" = 0 ] || exit "$rc"
  echo "test.sh: sanitizer and fuzz stage not run (ctest arguments or FABDIAG_SANITIZE_STAGE=0); run scripts/test-sanitize.sh"
  exit 0
fi
if [ "$rc" != 0 ]; then
  echo "test.sh: ctest failed (exit $rc); the sanitizer stage is not run" >&2
  exit "$rc"
fi
san_rc=0
wait "$san_pid" || san_rc=$?
san_pid=""
if [ "$san_rc" != 0 ]; then
  echo "test.sh: the sanitizer build failed (exit $san_rc); the end of $san_log:" >&2
  tail -n 60 "$san_log" >&2
  exit "$san_rc"
fi
grep '^test-sanitize:' "$san_log" || true
bash "$root/scripts/test-sanitize.sh" ctest fuzz
