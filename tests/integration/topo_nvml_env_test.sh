#!/usr/bin/env bash
# NVML library selection of `fabdiag topo`: $FABDIAG_NVML_LIB is used for a fixture, --nvml-lib
# wins over it, and without either a fixture is not looked up in this machine's NVML.
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
fake=${FABDIAG_FAKE_NVML:-}
[ -n "$fake" ] || { echo "SKIPPED: FABDIAG_FAKE_NVML not set (ctest sets it to the built fake NVML)"; exit 77; }
out=$(mktemp "${TMPDIR:-/tmp}/fabdiag-nvml-env.XXXXXX") || { echo "SKIPPED: mktemp failed"; exit 77; }
trap 'rm -f "$out"' EXIT
fail=0
export FAKE_NVML_CONFIG=$src/tests/fakes/nvml/dgx8-nvswitch.conf
dgx8=$src/tests/fixtures/dgx8

FABDIAG_NVML_LIB=$fake "$bin" topo -q --sysfs-root "$dgx8" --format table >"$out" 2>&1
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: FABDIAG_NVML_LIB=fake: exit $rc, expected 0"; fail=1; }
grep -q "^GPU0  X     NV18" "$out" || { echo "FAIL: FABDIAG_NVML_LIB=fake: no NV18 in the matrix"; head -12 "$out"; fail=1; }

FABDIAG_NVML_LIB=$fake "$bin" topo -q --sysfs-root "$dgx8" --nvml-lib /nonexistent/libnvidia-ml.so.1 --format table >"$out" 2>&1
rc=$?
[ "$rc" = 4 ] || { echo "FAIL: --nvml-lib over FABDIAG_NVML_LIB: exit $rc, expected 4"; fail=1; }
grep -q "NVLink: unknown (/nonexistent/libnvidia-ml.so.1 could not be loaded" "$out" ||
  { echo "FAIL: --nvml-lib did not win over FABDIAG_NVML_LIB"; fail=1; }

env -u FABDIAG_NVML_LIB "$bin" topo -q --sysfs-root "$dgx8" --format table >"$out" 2>&1
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: fixture without NVML: exit $rc, expected 0"; fail=1; }
grep -q "NVLink: unknown (NVML not read: --sysfs-root" "$out" || { echo "FAIL: fixture without NVML: reason missing"; fail=1; }
# Setuid (AT_SECURE): $FABDIAG_NVML_LIB is ignored, --nvml-lib and triage --hostfile refused (exit 2). Only root
# can make a copy setuid to another user; run as root, the copy runs with euid nobody.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  suid_dir=$(mktemp -d "${TMPDIR:-/tmp}/fabdiag-suid.XXXXXX")
  cp "$bin" "$suid_dir/fabdiag" && chmod 0755 "$suid_dir" && chown nobody "$suid_dir/fabdiag" && chmod 4755 "$suid_dir/fabdiag"
  if "$suid_dir/fabdiag" --version >/dev/null 2>&1; then
    FABDIAG_NVML_LIB=$fake "$suid_dir/fabdiag" topo -q --sysfs-root "$dgx8" --format table >"$out" 2>&1
    rc=$?
    [ "$rc" = 0 ] || { echo "FAIL: setuid with FABDIAG_NVML_LIB: exit $rc, expected 0"; fail=1; }
    grep -q "NVLink: unknown (NVML not read: --sysfs-root" "$out" ||
      { echo "FAIL: setuid: FABDIAG_NVML_LIB was not ignored"; head -12 "$out"; fail=1; }
    "$suid_dir/fabdiag" topo -q --sysfs-root "$dgx8" --nvml-lib "$fake" --format table >"$out" 2>&1
    rc=$?
    [ "$rc" = 2 ] || { echo "FAIL: setuid with --nvml-lib: exit $rc, expected 2"; fail=1; }
    grep -q "^fabdiag: error: --nvml-lib: refused: fabdiag runs setuid or setgid" "$out" ||
      { echo "FAIL: setuid --nvml-lib: no refusal message"; cat "$out"; fail=1; }
    # triage --hostfile would run mpirun from the caller's PATH: refused before anything starts
    "$suid_dir/fabdiag" triage --hostfile "$src/tests/fixtures/launch/bad-slots.hosts" >"$out" 2>&1
    rc=$?
    [ "$rc" = 2 ] && grep -q "^fabdiag: error: --hostfile: refused: fabdiag runs setuid or setgid" "$out" ||
      { echo "FAIL: setuid triage --hostfile: exit $rc"; cat "$out"; fail=1; }
  else
    echo "note: a setuid copy cannot run here (nosuid mount?): setuid cases not checked"
  fi
  rm -rf "$suid_dir"
fi
exit $fail
