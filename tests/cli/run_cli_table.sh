#!/usr/bin/env bash
# Runs the CLI table: each line of TABLE is "<expected exit code> <fabdiag args...>".
# '#' starts a comment; @SRC@ is replaced by the repository root, @FAKE_NVML@ by
# $FABDIAG_FAKE_NVML (the test build's fake libnvidia-ml; ctest sets it). Fails listing every mismatch.
set -u
bin=$1 table=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
fail=0 n=0
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%%#*}
  [ -z "${line// /}" ] && continue
  expected=${line%% *}
  args=${line#* }
  args=${args//@SRC@/$src}
  args=${args//@FAKE_NVML@/${FABDIAG_FAKE_NVML:-/FABDIAG_FAKE_NVML-not-set}}
  n=$((n + 1))
  # shellcheck disable=SC2086  # word splitting of the table's args is intended
  out=$(eval "\"$bin\" $args" </dev/null 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" != "$expected" ]; then
    echo "FAIL: fabdiag $args -> exit $rc, expected $expected"
    echo "      stderr: $(echo "$out" | head -3)"
    fail=$((fail + 1))
  fi
done <"$table"
echo "cli table: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
