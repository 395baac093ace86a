#!/usr/bin/env bash
# A counter that goes down between two snapshots is a reset unless a wrap is plausible:
# an mlx5 32-bit hw_counter from 500 to 0 is "reset" (delta unknown, no loss finding), while the
# same counter from near 2^32 to a small value is a wrap with its exact delta.
set -euo pipefail
fabdiag=${1:?usage: counters_reset_test.sh FABDIAG}
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cp -a "$root/tests/fixtures/roce-rising/before" "$t/a"
cp -a "$root/tests/fixtures/roce-rising/before" "$t/b"
hw=devices/pci0000:00/0000:00:02.0/0000:17:00.0/infiniband/mlx5_0/ports/1/hw_counters
echo 500 > "$t/a/$hw/out_of_sequence"
echo 0 > "$t/b/$hw/out_of_sequence"
rc=0
"$fabdiag" counters --sysfs-root "$t/a" --after-sysfs-root "$t/b" --interval 10 --all --format json > "$t/out.json" || rc=$?
python3 - "$t/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["data"]["counters"] if x["name"] == "out_of_sequence" and x["device"].startswith("mlx5_0")]
assert len(c) == 1, c
assert c[0]["status"] == "reset", c[0]
assert c[0]["delta"] is None and c[0]["rate_per_s"] is None, c[0]
bad = [f for f in d["findings"] if f["severity"] != "info" and "out_of_sequence" in json.dumps(f)]
assert not bad, bad
codes = [f["code"] for f in d["findings"] if f["code"] == "counter_reset"]
assert codes, [f["code"] for f in d["findings"]]
PY
echo 4294967000 > "$t/a/$hw/out_of_sequence"
echo 200 > "$t/b/$hw/out_of_sequence"
"$fabdiag" counters --sysfs-root "$t/a" --after-sysfs-root "$t/b" --interval 10 --all --format json > "$t/out.json" || true
python3 - "$t/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["data"]["counters"] if x["name"] == "out_of_sequence" and x["device"].startswith("mlx5_0")][0]
assert c["status"] == "wrapped" and c["delta"] == 496, c
PY
echo "counters reset: 500 -> 0 is a reset, 4294967000 -> 200 a wrap of 496"
