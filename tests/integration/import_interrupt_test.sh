#!/usr/bin/env bash
# SIGTERM/SIGINT during `fabdiag import` / `triage --from` over an archive: the files not read
# yet say "not read: interrupted", the exit is 128 + signal, and the archive's temporary
# extraction is removed (it held a cluster's collected outputs; before, SIGTERM left it in /tmp).
# Deterministic: the archive is extracted first, then stdin ("-") is copied aside while the test
# holds the pipe open; the signal arrives during that copy (before any file is read), and the
# pipe is closed after it. (A signal between files prints what was read, marked partial.)
set -euo pipefail
fabdiag=${1:?usage: import_interrupt_test.sh FABDIAG}
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$t/tmp" "$t/pile/node01" "$t/pile/node02"
cases="$root/tests/fixtures/cases"
cp "$(ls "$cases"/013*.input.txt | head -1)" "$t/pile/node01/ibstat.txt"
cp "$(ls "$cases"/015*.input.txt | head -1)" "$t/pile/node02/ibstatus.txt"
tar czf "$t/pile.tgz" -C "$t" pile
cp "$(ls "$cases"/013*.input.txt | head -1)" "$t/later.txt"

# interrupted SIG FILE... : runs the command with stdin a held pipe, signals it, then closes the pipe.
interrupted() {
  local sig=$1
  shift
  mkfifo "$t/in"
  TMPDIR="$t/tmp" "$fabdiag" "$@" --format json < "$t/in" > "$t/out.json" 2> "$t/err" &
  local pid=$!
  exec 9> "$t/in"   # the writer: the command's spool of "-" waits on it
  for _ in $(seq 100); do  # until the archive is extracted (its temporary folder exists)
    [ -n "$(ls "$t/tmp")" ] && [ -n "$(find "$t/tmp" -name ibstat.txt)" ] && break
    sleep 0.1
  done
  sleep 0.3
  kill "-$sig" "$pid"
  sleep 0.3
  exec 9>&-
  rc=0
  wait "$pid" || rc=$?
  rm -f "$t/in"
}

interrupted TERM import "$t/pile.tgz" - "$t/later.txt"
[ "$rc" = 143 ] || fail "import, SIGTERM: exit $rc (want 143); $(cat "$t/err")"
[ -z "$(ls -A "$t/tmp")" ] || fail "import, SIGTERM: the extraction was left behind: $(ls -A "$t/tmp")"
grep -q "interrupted by SIGTERM: 4 of 4 files not read" "$t/err" || fail "import, SIGTERM: stderr $(cat "$t/err")"
grep -q "pile.tgz:pile/node01/ibstat.txt: not read: interrupted" "$t/err" || fail "import, SIGTERM: member not named"

interrupted INT triage --from "$t/pile.tgz" - "$t/later.txt"
[ "$rc" = 130 ] || fail "triage --from, SIGINT: exit $rc (want 130); $(cat "$t/err")"
[ -z "$(ls -A "$t/tmp")" ] || fail "triage --from, SIGINT: the extraction was left behind"
grep -q "interrupted by SIGINT" "$t/err" || fail "triage --from, SIGINT: stderr $(cat "$t/err")"

# Uninterrupted, the same inputs are read whole and the extraction is removed too.
TMPDIR="$t/tmp" "$fabdiag" import "$t/pile.tgz" "$t/later.txt" --format json > "$t/out.json" 2> "$t/err" || true
[ -z "$(ls -A "$t/tmp")" ] || fail "import: the extraction was left behind"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert not d.get('partial'); assert len(d['params']['files']) == 3, d['params']['files']" "$t/out.json" ||
  fail "import without a signal: $(head -c 300 "$t/out.json")"
echo "ok: SIGTERM 143 and SIGINT 130 with every file named not read, no extraction left"
