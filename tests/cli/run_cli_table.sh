#!/usr/bin/env bash
# Runs the CLI table: each line of TABLE is "<expected exit code> <fabdiag args...>"; args that
# start with "@SIGINT:S " run fabdiag in the background and send it SIGINT after S seconds (as
# Ctrl-C would: exit 130 is in the table too); such a row also fails when stdout stays empty
# (a process killed by the signal reads as 130 as well, but prints nothing). S is multiplied by
# $FABDIAG_TEST_SLOWDOWN (default 1; scripts/test-sanitize.sh sets it: a sanitized fabdiag takes
# longer than 1 s to reach its first step, and a signal before that ends it with nothing printed).
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
  if [[ $args =~ ^@SIGINT:([0-9.]+)\ (.*)$ ]]; then
    delay=${BASH_REMATCH[1]} args=${BASH_REMATCH[2]}
    delay=$(awk -v d="$delay" -v f="${FABDIAG_TEST_SLOWDOWN:-1}" 'BEGIN { print d * f }')
    # Job control (set -m): the background job keeps SIGINT instead of starting with it ignored.
    # shellcheck disable=SC2086
    stdout_file=$(mktemp)
    out=$(set -m; eval "\"$bin\" $args" </dev/null 2>&1 >"$stdout_file" & pid=$!; sleep "$delay"; kill -INT -- "-$pid"; wait "$pid")
    rc=$?
    [ -s "$stdout_file" ] || { rc="$rc (nothing on stdout)"; }
    rm -f "$stdout_file"
  else
    # shellcheck disable=SC2086  # word splitting of the table's args is intended
    out=$(eval "\"$bin\" $args" </dev/null 2>&1 >/dev/null)
    rc=$?
  fi
  if [ "$rc" != "$expected" ]; then
    echo "FAIL: fabdiag $args -> exit $rc, expected $expected"
    echo "      stderr: $(echo "$out" | head -3)"
    fail=$((fail + 1))
  fi
done <"$table"
echo "cli table: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
