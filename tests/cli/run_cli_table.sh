#!/usr/bin/env bash
# Runs the CLI table: each line of TABLE is "<expected exit code> <fabdiag args...>"; args that
# start with "@SIGINT:S " run fabdiag in the background and send it SIGINT S seconds after it
# first catches SIGINT (as Ctrl-C would: exit 130 is in the table too); such a row also fails when stdout stays empty
# (a process killed by the signal reads as 130 as well, but prints nothing). S is multiplied by
# $FABDIAG_TEST_SLOWDOWN (default 1; scripts/test-sanitize.sh sets it: a sanitized fabdiag takes
# longer than 1 s to reach its first step, and a signal before that ends it with nothing printed).
# '#' starts a comment; @SRC@ is replaced by the repository root, @FAKE_NVML@ by
# $FABDIAG_FAKE_NVML (the test build's fake libnvidia-ml; ctest sets it). Fails listing every mismatch.
set -u
bin=$1 table=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
fail=0 n=0

# wait_sigint_caught PGID: returns once a fabdiag process of group PGID catches SIGINT (bit 2 of
# SigCgt in /proc/PID/status; the bash around it may catch SIGINT itself, so it is not asked),
# or after 20 s x slowdown. S counts from there: before main() installs its handler no program
# can answer Ctrl-C, and a sanitized binary on a loaded CI machine spends
# longer than S in the dynamic loader and the sanitizer runtime's start-up (CI's stop 18 failed
# that way: killed by the default action, exit 130, nothing printed).
wait_sigint_caught() {
  local pgid=$1 tries=$((2000 * ${FABDIAG_TEST_SLOWDOWN:-1})) f s mask comm=${bin##*/}
  comm=${comm:0:15}  # /proc's comm is the first 15 bytes of the name
  while [ "$tries" -gt 0 ]; do
    for f in /proc/[0-9]*/stat; do
      { read -r s <"$f"; } 2>/dev/null || continue
      [[ $s == *"($comm) "* ]] || continue
      s=${s##*) }
      # shellcheck disable=SC2086  # fields after the command name: state ppid pgrp ...
      set -- $s
      [ "${3:-}" = "$pgid" ] || continue
      mask=$(awk '/^SigCgt:/ { print $2 }' "${f%/stat}/status" 2>/dev/null)
      [ -n "$mask" ] && (( (16#$mask >> 1) & 1 )) && return 0
    done
    kill -0 -- "-$pgid" 2>/dev/null || return 0
    sleep 0.01
    tries=$((tries - 1))
  done
}
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
    out=$(set -m; eval "\"$bin\" $args" </dev/null 2>&1 >"$stdout_file" & pid=$!
          wait_sigint_caught "$pid"; sleep "$delay"; kill -INT -- "-$pid"; wait "$pid")
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
