#!/usr/bin/env bash
# scripts/sysfs-from-lines.sh rebuilds the committed fixtures exactly (files, values, links).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
gen=$src/scripts/sysfs-from-lines.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # name, committed tree, line files...
  local name=$1 tree=$2
  shift 2
  "$gen" "$tmp/$name" "$@" >/dev/null || { echo "FAIL: $name: generator failed"; fail=1; return; }
  if ! diff -r --no-dereference -x ethtool "$tree" "$tmp/$name"; then
    echo "FAIL: $name: generated tree differs from $tree"
    fail=1
  fi
}
f=$src/tests/fixtures
check case019 "$f/case019" "$f/case019.lines"
check counters-gaps "$f/counters-gaps" "$f/counters-gaps.lines"
check roce-before "$f/roce-rising/before" "$f/roce-rising/common.lines" "$f/roce-rising/before.lines"
check roce-after "$f/roce-rising/after" "$f/roce-rising/common.lines" "$f/roce-rising/after.lines"
# The split rule: ':' inside PCI names stays in the path; values may hold ':' and '/'.
printf '%s\n' '/sys/devices/pci0000:00/0000:00:02.0/current_link_speed:16.0 GT/s PCIe' \
  'class/infiniband/x/ports/1/rate:25 Gb/sec (1X EDR)' 'class/infiniband/x/ports/1/counters/a:N/A (no PMA)' \
  'class/infiniband/x/ports/1/phys_state:5: LinkUp' | "$gen" "$tmp/split" >/dev/null
[ "$(cat "$tmp/split/devices/pci0000:00/0000:00:02.0/current_link_speed")" = "16.0 GT/s PCIe" ] || { echo "FAIL: BDF path split"; fail=1; }
[ "$(cat "$tmp/split/class/infiniband/x/ports/1/rate")" = "25 Gb/sec (1X EDR)" ] || { echo "FAIL: rate split"; fail=1; }
[ "$(cat "$tmp/split/class/infiniband/x/ports/1/counters/a")" = "N/A (no PMA)" ] || { echo "FAIL: N/A split"; fail=1; }
[ "$(cat "$tmp/split/class/infiniband/x/ports/1/phys_state")" = "5: LinkUp" ] || { echo "FAIL: phys_state split"; fail=1; }
# Absolute link targets and '..' escape are refused.
if printf 'class/net/eth0 -> /etc\n' | "$gen" "$tmp/bad" 2>/dev/null; then echo "FAIL: absolute link accepted"; fail=1; fi
if printf 'a/../../x:1\n' | "$gen" "$tmp/bad2" 2>/dev/null; then echo "FAIL: '..' accepted"; fail=1; fi
[ "$fail" = 0 ] && echo "ok: fixtures regenerate identically"
exit "$fail"
