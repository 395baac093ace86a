#!/usr/bin/env bash
# Golden test: runs fabdiag with the arguments in CASE.cmd (one line; @SRC@ = repository root)
# and diffs stdout against CASE.out. Volatile envelope fields (started_at, duration_s, hosts,
# tool_version) are masked in JSON output. The exit code must equal CASE.rc when that file
# exists. Stderr is diffed against CASE.err when that file exists; a case whose stderr carries
# gaps or errors (a line matching $gap_or_error_re below, not just progress) must have one.
# In stderr the repository root is written @SRC@. FABDIAG_REGEN_GOLDEN=1 rewrites CASE.out,
# CASE.rc and CASE.err (removed when stderr carries no gap or error): review the diff before
# committing.
# @FAKE_NVML@ in CASE.cmd is the test build's fake libnvidia-ml ($FABDIAG_FAKE_NVML, set by ctest;
# written back as @FAKE_NVML@ in the output); CASE.env holds NAME=VALUE lines (@SRC@ allowed)
# exported for the run, e.g. FAKE_NVML_CONFIG.
set -u
bin=$1 case_file=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
base=${case_file%.cmd}
args=$(head -n1 "$case_file")
args=${args//@SRC@/$src}
fake=${FABDIAG_FAKE_NVML:-}
if [[ "$args" == *@FAKE_NVML@* ]]; then
  if [ -z "$fake" ]; then
    echo "FAIL: $case_file uses @FAKE_NVML@: set FABDIAG_FAKE_NVML to the built fake NVML (ctest does)"
    exit 1
  fi
  args=${args//@FAKE_NVML@/$fake}
fi
if [ -f "$base.env" ]; then
  while IFS= read -r kv || [ -n "$kv" ]; do
    case $kv in '' | '#'*) continue ;; esac
    export "${kv//@SRC@/$src}"
  done <"$base.env"
fi
mask() {
  sed -E -e 's/("started_at": )"[^"]*"/\1"<masked>"/' \
         -e 's/("duration_s": )[0-9.eE+-]+/\1"<masked>"/' \
         -e 's/("tool_version": )"[^"]*"/\1"<masked>"/' \
         -e '/"hosts": \[\]/b' \
         -e '/"hosts": \[/,/\]/{/"hosts": \[/!{/\]/!d}}' |
    if [ -n "$fake" ]; then sed -e "s|$fake|@FAKE_NVML@|g"; else cat; fi
}
# Stderr lines that are more than progress: a gap ("NOT READ"), an error, a warning or a note.
gap_or_error_re='NOT READ|error|^fabdiag: (warning|note):'
# Host-dependent bits of stderr: the checkout's path and the fake NVML's path.
mask_err() {
  sed -e "s|$src/|@SRC@/|g" |
    if [ -n "$fake" ]; then sed -e "s|$fake|@FAKE_NVML@|g"; else cat; fi
}
# Run first, then mask: the exit code of a pipeline inside $(...) is lost.
out_file=$(mktemp) err_file=$(mktemp)
trap 'rm -f "$out_file" "$err_file"' EXIT
eval "\"$bin\" $args" >"$out_file" 2>"$err_file"
rc=$?
actual=$(mask <"$out_file")
actual_err=$(mask_err <"$err_file")
if [ "${FABDIAG_REGEN_GOLDEN:-0}" = 1 ]; then
  printf '%s\n' "$actual" >"$base.out"
  echo "$rc" >"$base.rc"
  if grep -qE "$gap_or_error_re" <<<"$actual_err"; then
    printf '%s\n' "$actual_err" >"$base.err"
    echo "regenerated $base.out and $base.err (exit $rc)"
  else
    rm -f "$base.err"
    echo "regenerated $base.out (exit $rc)"
  fi
  exit 0
fi
if [ ! -f "$base.out" ]; then
  echo "FAIL: missing golden file $base.out (run with FABDIAG_REGEN_GOLDEN=1)"
  exit 1
fi
status=0
if ! diff -u "$base.out" <(printf '%s\n' "$actual"); then
  echo "FAIL: output of 'fabdiag $args' differs from $base.out"
  status=1
fi
if [ -f "$base.err" ]; then
  if ! diff -u "$base.err" <(printf '%s\n' "$actual_err"); then
    echo "FAIL: stderr of 'fabdiag $args' differs from $base.err"
    status=1
  fi
elif grep -qE "$gap_or_error_re" <<<"$actual_err"; then
  echo "FAIL: stderr of 'fabdiag $args' carries gaps or errors but there is no $base.err" \
       "(run with FABDIAG_REGEN_GOLDEN=1):"
  printf '%s\n' "$actual_err"
  status=1
fi
if [ -f "$base.rc" ] && [ "$(cat "$base.rc")" != "$rc" ]; then
  echo "FAIL: exit code $rc, expected $(cat "$base.rc")"
  status=1
fi
exit $status
