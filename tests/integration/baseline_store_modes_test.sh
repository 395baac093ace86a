#!/usr/bin/env bash
# The baseline store is created 0755 with files 0644 whatever the umask; a store that cannot be
# written is the user's to fix (exit 2, the path named), an I/O failure exit 4, never 70.
set -euo pipefail
fabdiag=${1:?usage: baseline_store_modes_test.sh FABDIAG}
root=$(cd "$(dirname "$0")/../.." && pwd)
result="$root/tests/fixtures/baseline/current-bench.json"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
( umask 077; "$fabdiag" baseline save -q --store "$t/a/b/store" nightly "$result" --format json > /dev/null )
for d in "$t/a" "$t/a/b" "$t/a/b/store"; do
  [ "$(stat -c %a "$d")" = 755 ] || fail "$d has mode $(stat -c %a "$d")"
done
[ "$(stat -c %a "$t/a/b/store/nightly.json")" = 644 ] || fail "baseline file mode $(stat -c %a "$t/a/b/store/nightly.json")"
# a looser umask (000) must not give world-writable directories or files either
( umask 000; "$fabdiag" baseline save -q --store "$t/o/store" nightly "$result" --format json > /dev/null )
for d in "$t/o" "$t/o/store"; do
  [ "$(stat -c %a "$d")" = 755 ] || fail "umask 000: $d has mode $(stat -c %a "$d")"
done
[ "$(stat -c %a "$t/o/store/nightly.json")" = 644 ] || fail "umask 000: baseline file mode $(stat -c %a "$t/o/store/nightly.json")"
# a store under /sys cannot be created (EPERM even for root): exit 2 naming it
rc=0; "$fabdiag" baseline save -q --store /sys/fabdiag-store nightly "$result" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 2 ] || fail "unwritable store: exit $rc ($(cat "$t/err"))"
grep -q "/sys/fabdiag-store" "$t/err" || fail "the store path is not named: $(cat "$t/err")"
# a store path through a regular file (ENOTDIR): the path is wrong, exit 2 naming it with strerror
touch "$t/file"
rc=0; "$fabdiag" baseline save -q --store "$t/file/store" nightly "$result" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 2 ] || fail "store under a file: exit $rc ($(cat "$t/err"))"
grep -q "$t/file/store: cannot create the baseline store directory: Not a directory" "$t/err" ||
  fail "the store path or strerror is not named: $(cat "$t/err")"
# names are validated: no path components
rc=0; "$fabdiag" baseline save -q --store "$t/s" ../evil "$result" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && [ ! -e "$t/evil.json" ] || fail "name ../evil accepted: exit $rc"
grep -q "invalid baseline name '../evil'" "$t/err" || fail "the bad name is not named: $(cat "$t/err")"
# a name with a terminal escape sequence is refused and shown escaped
rc=0; "$fabdiag" baseline save -q --store "$t/s" "$(printf 'a\033[2Jb')" "$result" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 2 ] || fail "name with ESC accepted: exit $rc"
grep -qF "invalid baseline name 'a\x1b[2Jb'" "$t/err" || fail "the escape sequence is not escaped: $(cat -v "$t/err")"
echo "baseline store: 0755/0644 under umask 077 and 000; unwritable store exit 2, I/O failure exit 4"
