#!/usr/bin/env bash
# --output writes only regular files (atomically), never replaces devices, FIFOs, sockets or
# directories; a symlink's target is replaced and the link kept; write errors on stdout and on
# files give a clear error and a non-zero exit; EPIPE from `| head` is quiet. A replaced file
# keeps its mode and (as root) its owner; a file the caller could not write, or one of the
# command's inputs, is refused and left as it was.
set -euo pipefail
fabdiag=${1:?usage: output_safety_test.sh FABDIAG}
root=$(cd "$(dirname "$0")/../.." && pwd)
fx="$root/tests/fixtures/dgx8"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { rc=0; "$fabdiag" topo --sysfs-root "$fx" --format json "$@" > "$t/out" 2> "$t/err" || rc=$?; }

# a character device: refused (exit 2), still a device afterwards
if [ -e /dev/full ]; then
  run -o /dev/full
  [ "$rc" = 2 ] || fail "-o /dev/full exit $rc"
  grep -q "character device" "$t/err" || fail "-o /dev/full: $(cat "$t/err")"
  [ -c /dev/full ] || fail "/dev/full is no longer a character device"
fi
mknod "$t/null" c 1 3 2>/dev/null && {
  run -o "$t/null"; [ "$rc" = 2 ] && [ -c "$t/null" ] || fail "-o on a device node: rc $rc"; }
# a FIFO and a directory: refused, left alone
mkfifo "$t/fifo"
run -o "$t/fifo"; [ "$rc" = 2 ] && [ -p "$t/fifo" ] || fail "-o FIFO: rc $rc"
grep -q "a FIFO" "$t/err" || fail "-o FIFO message: $(cat "$t/err")"
mkdir "$t/dir"
run -o "$t/dir"; [ "$rc" = 2 ] && [ -d "$t/dir" ] || fail "-o directory: rc $rc"
# a socket
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$t/sock"
run -o "$t/sock"; [ "$rc" = 2 ] && [ -S "$t/sock" ] || fail "-o socket: rc $rc"
# a symlink: the target is replaced, the link stays a link
echo old > "$t/target.json"; chmod 644 "$t/target.json"; ln -s target.json "$t/link.json"
run -o "$t/link.json"; [ "$rc" = 0 ] || fail "-o symlink: rc $rc $(cat "$t/err")"
[ -L "$t/link.json" ] || fail "the symlink was replaced"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$t/target.json" || fail "target not written"
[ "$(stat -c %a "$t/target.json")" = 644 ] || fail "mode $(stat -c %a "$t/target.json")"
# a replaced file keeps its mode (a 0600 secret stays 0600), and as root its owner and group
echo secret > "$t/m600.json"; chmod 600 "$t/m600.json"
run -o "$t/m600.json"; [ "$rc" = 0 ] || fail "-o m600: rc $rc $(cat "$t/err")"
[ "$(stat -c %a "$t/m600.json")" = 600 ] || fail "-o loosened 0600 to $(stat -c %a "$t/m600.json")"
grep -q secret "$t/m600.json" && fail "-o m600: not replaced"
echo old > "$t/m640.json"; chmod 640 "$t/m640.json"
if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$t/m640.json"; fi
owner=$(stat -c %u:%g "$t/m640.json")
run -o "$t/m640.json"; [ "$rc" = 0 ] || fail "-o m640: rc $rc $(cat "$t/err")"
[ "$(stat -c %a "$t/m640.json")" = 640 ] || fail "-o m640: mode $(stat -c %a "$t/m640.json")"
[ "$(stat -c %u:%g "$t/m640.json")" = "$owner" ] || fail "-o m640: owner $(stat -c %u:%g "$t/m640.json"), was $owner"
# a new file is still 0644
run -o "$t/fresh.json"; [ "$rc" = 0 ] || fail "-o fresh: rc $rc"
[ "$(stat -c %a "$t/fresh.json")" = 644 ] || fail "-o fresh: mode $(stat -c %a "$t/fresh.json")"

# a file the caller could not write is refused, even where the directory lets it rename
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: unwritable-target refusal (needs root to run as uid 65534)"
elif ! command -v setpriv >/dev/null; then
  echo "SKIPPED: unwritable-target refusal (no setpriv)"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$fabdiag" -a -r "$fx/class" 2>/dev/null; then
  echo "SKIPPED: unwritable-target refusal (uid 65534 cannot run $fabdiag or read $fx)"
else
  chmod 711 "$t"; mkdir "$t/x"; chmod 777 "$t/x"
  echo "root's" > "$t/x/target.txt"; chmod 644 "$t/x/target.txt"
  rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$fabdiag" topo --sysfs-root "$fx" --format json \
    -o "$t/x/target.txt" > "$t/out" 2> "$t/err" || rc=$?
  [ "$rc" = 2 ] || fail "uid 65534 -o root's 0644 file: rc $rc $(cat "$t/err")"
  grep -q "not writable by uid 65534" "$t/err" || fail "unwritable message: $(cat "$t/err")"
  [ "$(cat "$t/x/target.txt")" = "root's" ] && [ "$(stat -c %u "$t/x/target.txt")" = 0 ] || fail "unwritable target changed"
  [ "$(ls -A "$t/x")" = target.txt ] || fail "left behind: $(ls -A "$t/x")"
  chmod 700 "$t"
fi

# -o onto one of the command's inputs: refused (exit 2), the input untouched
cp "$root/tests/fixtures/nccl-tests/json-v2-allreduce-2node.json" "$t/raw.json"
cp "$t/raw.json" "$t/raw.orig"
rc=0; "$fabdiag" import "$t/raw.json" --format json -o "$t/raw.json" > "$t/out" 2> "$t/err" || rc=$?
[ "$rc" = 2 ] || fail "import -o its input: rc $rc"
grep -q "is also an input" "$t/err" || fail "import -o input message: $(cat "$t/err")"
cmp -s "$t/raw.json" "$t/raw.orig" || fail "import -o destroyed its input"
"$fabdiag" import "$t/raw.json" --format json -o "$t/r.json" 2> /dev/null || true
[ -s "$t/r.json" ] || fail "import did not write r.json"
cp "$t/r.json" "$t/r.orig"
ln "$t/r.json" "$t/r-hard.json"; ln -s r.json "$t/r-link.json"
for out in r.json r-hard.json r-link.json; do
  rc=0; "$fabdiag" report "$t/r.json" --format json -o "$t/$out" > "$t/out" 2> "$t/err" || rc=$?
  [ "$rc" = 2 ] || fail "report r.json -o $out: rc $rc"
  grep -q "is also an input" "$t/err" || fail "report -o input message: $(cat "$t/err")"
done
cmp -s "$t/r.json" "$t/r.orig" || fail "report -o destroyed its input"
rc=0; "$fabdiag" report "$t/r.json" --format json -o "$t/r2.json" > "$t/out" 2> "$t/err" || rc=$?
[ "$rc" != 2 ] && [ -s "$t/r2.json" ] || fail "report -o another file: rc $rc $(cat "$t/err")"
rc=0; "$fabdiag" check --from "$t/raw.orig" -o "$t/raw.orig" > "$t/out" 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "is also an input" "$t/err" || fail "check --from -o input: rc $rc $(cat "$t/err")"

# a dangling symlink names the file to create
ln -s new.json "$t/dangling.json"
run -o "$t/dangling.json"; [ "$rc" = 0 ] && [ -f "$t/new.json" ] && [ -L "$t/dangling.json" ] || fail "dangling link: rc $rc"
# a symlink to a device is refused
ln -s /dev/null "$t/tonull"
run -o "$t/tonull"; [ "$rc" = 2 ] && [ -c /dev/null ] || fail "-o link to /dev/null: rc $rc"
# -o - is stdout
run -o -; [ "$rc" = 0 ] && [ -s "$t/out" ] && [ ! -e ./- ] || fail "-o -: rc $rc"
# stdout on a full device: an error and a non-zero exit
if [ -e /dev/full ]; then
  rc=0; "$fabdiag" topo --sysfs-root "$fx" --format table > /dev/full 2> "$t/err" || rc=$?
  [ "$rc" != 0 ] || fail "stdout to /dev/full exited 0"
  grep -q "No space left on device" "$t/err" || fail "stdout /dev/full message: $(cat "$t/err")"
fi
# EPIPE: quiet (the read end is closed before fabdiag writes)
python3 - "$fabdiag" "$fx" <<'PY' || fail "EPIPE was not quiet"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "topo", "-q", "--sysfs-root", sys.argv[2], "--format", "json"],
                   stdout=w, stderr=subprocess.PIPE)
os.close(w)
assert p.stderr == b"", p.stderr
assert p.returncode == 0, p.returncode
PY
echo "output safety: devices, FIFOs, sockets, directories, unwritable files and inputs refused; modes kept;" \
  "symlinks resolved; write errors reported"
