#!/usr/bin/env bash
# `fabdiag gather` end to end on a fixture: capture tests/fixtures/dgx8 into a new directory and
# into a .tar.gz, and check that `fabdiag topo` (with the fake NVML) prints the same on the
# capture as on the original, that links are relative, GUIDs are placeholders, and that a
# second gather into the same directory is refused.
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fabdiag-gather-test.XXXXXX") || { echo "SKIPPED: mktemp failed"; exit 77; }
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what"
    fail=1
  fi
}

"$bin" gather -q --sysfs-root "$src/tests/fixtures/dgx8" --output "$work/cap" --tar "$work/cap.tar.gz" \
  --format json >"$work/gather.json" 2>"$work/gather.err"
rc=$?
check "gather exit code $rc, expected 0 ($(head -3 "$work/gather.err"))" [ "$rc" = 0 ]
check "gather summary counts 46 PCI functions" grep -q '"pci_functions": 46' "$work/gather.json"
check "gather summary counts 8 RDMA devices" grep -q '"ibdevs": 8' "$work/gather.json"

# Same topology (matrix, NVLink from the fake NVML, rails, PCIe table) on the capture.
topo() {  # topo ROOT OUT
  FAKE_NVML_CONFIG=$src/tests/fakes/nvml/dgx8-nvswitch.conf \
    "$bin" topo -q --sysfs-root "$1" --nvml-lib "${FABDIAG_FAKE_NVML:-/FABDIAG_FAKE_NVML-not-set}" --format table \
    | sed "s|$1|ROOT|g" >"$2"
}
topo "$src/tests/fixtures/dgx8" "$work/original.txt"
topo "$work/cap" "$work/captured.txt"
check "topo on the capture differs from topo on the fixture" diff -u "$work/original.txt" "$work/captured.txt"
if [ -n "${FABDIAG_FAKE_NVML:-}" ]; then
  check "NV18 expected in the captured matrix" grep -q "NV18" "$work/captured.txt"
fi

absolute=$(find "$work/cap" -type l -lname '/*' | head -3)
check "absolute links in the capture: $absolute" [ -z "$absolute" ]
bad_guid=$(grep -L '^0000:0000:0000:[0-9a-f]\{4\}$' "$work"/cap/devices/*/*/*/*/*/infiniband/*/node_guid \
  "$work"/cap/devices/*/*/*/*/*/*/*/infiniband/*/node_guid 2>/dev/null | head -3)
check "node_guid not a placeholder: $bad_guid" [ -z "$bad_guid" ]
check "README in the capture" [ -f "$work/cap/README.md" ]

# The archive holds the same tree; topo works on it after unpacking.
mkdir -p "$work/untar"
check "tar -xzf of the archive" tar -xzf "$work/cap.tar.gz" -C "$work/untar"
topo "$work/untar" "$work/untarred.txt"
check "topo on the unpacked archive differs" diff -u "$work/original.txt" "$work/untarred.txt"

# A directory that is not empty is refused (exit 2) and left alone.
"$bin" gather -q --sysfs-root "$src/tests/fixtures/dgx8" --output "$work/cap" --format json >/dev/null 2>"$work/again.err"
rc=$?
check "second gather into the same directory: exit $rc, expected 2" [ "$rc" = 2 ]
check "the refusal names the directory" grep -q "$work/cap" "$work/again.err"
exit $fail
