#!/usr/bin/env bash
# --output writes only regular files (atomically), never replaces devices, FIFOs, sockets or
# directories; a symlink's target is replaced and the link kept; write errors on stdout and on
# files give a clear error and a non-zero exit; EPIPE from `| head` is quiet.
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
echo old > "$t/target.json"; ln -s target.json "$t/link.json"
run -o "$t/link.json"; [ "$rc" = 0 ] || fail "-o symlink: rc $rc $(cat "$t/err")"
[ -L "$t/link.json" ] || fail "the symlink was replaced"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$t/target.json" || fail "target not written"
[ "$(stat -c %a "$t/target.json")" = 644 ] || fail "mode $(stat -c %a "$t/target.json")"
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
echo "output safety: devices, FIFOs, sockets and directories refused; symlinks resolved; write errors reported"
