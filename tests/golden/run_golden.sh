#!/usr/bin/env bash
# Golden test: runs fabdiag with the arguments in CASE.cmd (one line; @SRC@ = repository root)
# and diffs stdout against CASE.out. Volatile envelope fields (started_at, duration_s, hosts,
# tool_version) are masked in JSON output. The exit code must equal CASE.rc when that file
# exists. FABDIAG_REGEN_GOLDEN=1 rewrites CASE.out (and CASE.rc): review the diff before committing.
set -u
bin=$1 case_file=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
base=${case_file%.cmd}
args=$(head -n1 "$case_file")
args=${args//@SRC@/$src}
mask() {
  sed -E -e 's/("started_at": )"[^"]*"/\1"<masked>"/' \
         -e 's/("duration_s": )[0-9.eE+-]+/\1"<masked>"/' \
         -e 's/("tool_version": )"[^"]*"/\1"<masked>"/' \
         -e '/"hosts": \[/,/\]/{/"hosts": \[/!{/\]/!d}}'
}
# PIPESTATUS must be read inside the substitution: outside it only sees the assignment.
actual=$(eval "\"$bin\" $args" 2>/dev/null | mask; exit "${PIPESTATUS[0]}")
rc=$?
if [ "${FABDIAG_REGEN_GOLDEN:-0}" = 1 ]; then
  printf '%s\n' "$actual" >"$base.out"
  echo "$rc" >"$base.rc"
  echo "regenerated $base.out (exit $rc)"
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
if [ -f "$base.rc" ] && [ "$(cat "$base.rc")" != "$rc" ]; then
  echo "FAIL: exit code $rc, expected $(cat "$base.rc")"
  status=1
fi
exit $status
