#!/usr/bin/env bash
# `fabdiag gather` on this machine's real /sys (here: a VM with a virtio NIC and no GPU): the
# capture must be readable by `fabdiag topo` and give the same view as the live /sys. NVML is
# pointed at a missing library on both sides so the NVLink line is the same.
set -u
bin=$1
[ -d /sys/bus/pci/devices ] || { echo "SKIPPED: no /sys/bus/pci/devices on this machine"; exit 77; }
[ -n "$(ls /sys/bus/pci/devices 2>/dev/null)" ] || { echo "SKIPPED: no PCI function visible in /sys"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fabdiag-gather-live.XXXXXX") || { echo "SKIPPED: mktemp failed"; exit 77; }
trap 'rm -rf "$work"' EXIT
fail=0

"$bin" gather -q --output "$work/cap" --format json >"$work/gather.json" 2>"$work/gather.err"
rc=$?
# 4 = some files could not be read (e.g. permissions in a container): still a usable capture.
if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
  echo "FAIL: gather on /sys exited $rc"
  head -5 "$work/gather.err"
  exit 1
fi
grep -q '"pci_functions": [1-9]' "$work/gather.json" || { echo "FAIL: no PCI function captured"; fail=1; }

nvml=/nonexistent/libnvidia-ml.so.1
"$bin" topo -q --nvml-lib "$nvml" --format table >"$work/live.txt" 2>&1
"$bin" topo -q --sysfs-root "$work/cap" --nvml-lib "$nvml" --format table >"$work/captured.txt" 2>&1
if ! diff -u "$work/live.txt" "$work/captured.txt"; then
  echo "FAIL: topo on the capture of /sys differs from topo on /sys"
  fail=1
fi
# The machine's MAC addresses must not be in the capture.
for mac in $(cat /sys/class/net/*/address 2>/dev/null | sort -u); do
  case $mac in 00:00:00:00:00:00 | "") continue ;; esac
  if grep -rqF "$mac" "$work/cap" 2>/dev/null; then
    echo "FAIL: MAC address $mac found in the capture"
    fail=1
  fi
done
if [ -e /sys/class/net/eth0 ] && [ ! -L "$work/cap/class/net/eth0" ]; then
  echo "FAIL: class/net/eth0 not captured as a link"
  fail=1
fi
exit $fail
