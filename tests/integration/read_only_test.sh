#!/usr/bin/env bash
# fabdiag is read-only on the system it inspects: on the live host (under strace) topo, check,
# counters (one snapshot and a window), doctor and gather open nothing under /sys or /proc for
# writing, make no qdisc/route/link change over netlink (RTM_NEW*/RTM_DEL*) and issue no
# SIOCETHTOOL set command; on a fixture tree nothing in the tree changes.
set -euo pipefail
fabdiag=${1:?usage: read_only_test.sh FABDIAG}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v strace >/dev/null || { echo "SKIPPED: strace is not installed (scripts/setup.sh installs it)"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

trace() {  # trace NAME ARGS...: run fabdiag ARGS under strace into $t/NAME.trace
  local name=$1; shift
  # A sanitized build (scripts/test-sanitize.sh): LeakSanitizer cannot run under ptrace, so
  # leaks are not checked in the traced runs (ASan and UBSan still are).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$t/$name.trace" -e trace=open,openat,openat2,creat,truncate,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,chmod,fchmodat,ioctl,sendmsg,sendto,write \
    -e signal=none "$fabdiag" "$@" > "$t/$name.out" 2> "$t/$name.err" || true
  # writes to /sys or /proc: an open for writing, or a path-changing call, on them
  if grep -E '(open|openat|openat2|creat)\(.*"/(sys|proc)/[^"]*".*O_(WRONLY|RDWR|CREAT|TRUNC)' "$t/$name.trace" \
       | grep -v '/proc/self/fd\|/proc/[0-9]*/fd' > "$t/$name.bad"; then
    fail "$name opened /sys or /proc for writing: $(head -3 "$t/$name.bad")"
  fi
  if grep -E '(truncate|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|chmod|fchmodat)\(.*"/(sys|proc)/' "$t/$name.trace" > "$t/$name.bad"; then
    fail "$name changed /sys or /proc: $(head -3 "$t/$name.bad")"
  fi
  # rtnetlink changes (tc qdisc/filter, links, addresses, routes)
  if grep -E 'RTM_(NEW|DEL|SET)(QDISC|TFILTER|TCLASS|LINK|ADDR|ROUTE)' "$t/$name.trace" > "$t/$name.bad"; then
    fail "$name sent an rtnetlink change: $(head -3 "$t/$name.bad")"
  fi
  # SIOCETHTOOL with an ETHTOOL_S* command: strace prints the ioctl but not always the command;
  # fabdiag's only ethtool ioctls are GSTRINGS/GSSET_INFO/GSTATS/GLINK/GSET/GMODULE*: none set.
  if grep -E 'ETHTOOL_S[A-Z]' "$t/$name.trace" > "$t/$name.bad"; then
    fail "$name issued an ethtool set command: $(head -3 "$t/$name.bad")"
  fi
}

trace topo topo --format json
trace check check --format json
trace counters counters --format json
trace counters_window counters --interval 0.2 --format json
trace doctor doctor --format json
trace gather gather -o "$t/capture"
grep -q 'SIOCETHTOOL\|ioctl' "$t/counters.trace" || echo "note: no ioctl seen (no ethtool stats on this host)"

# fixture trees stay byte-identical
cp -a "$root/tests/fixtures/roce-rising" "$t/fx"
before=$(cd "$t/fx" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
"$fabdiag" counters -q --sysfs-root "$t/fx/before" --after-sysfs-root "$t/fx/after" --interval 5 --format json > /dev/null || true
"$fabdiag" check -q --sysfs-root "$t/fx/before" --format json > /dev/null || true
"$fabdiag" topo -q --sysfs-root "$t/fx/before" --format json > /dev/null || true
after=$(cd "$t/fx" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
[ "$before" = "$after" ] || fail "a fixture tree changed under counters/check/topo"
echo "read-only: no write under /sys or /proc, no rtnetlink change, no ethtool set; fixtures unchanged"
