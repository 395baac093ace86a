#!/usr/bin/env bash
# ethtool netlink for real on a veth pair made for the test: link facts (veth reports
# 10000 Mb/s full duplex) come back, and pause/FEC/module EEPROM are "not supported"
# (EOPNOTSUPP), listed under data.unavailable, never as errors. Needs root (creates a veth pair
# in this network namespace and deletes it on exit).
set -u
bin=$1
[ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root to create a veth pair"; exit 77; }
command -v ip >/dev/null || { echo "SKIPPED: iproute2 (ip) not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed (needed to parse JSON)"; exit 77; }
a="fdnl$$a" b="fdnl$$b"
ip link add "$a" type veth peer name "$b" 2>/dev/null || { echo "SKIPPED: cannot create a veth pair here"; exit 77; }
out=$(mktemp)
trap 'ip link del "$a" 2>/dev/null; rm -f "$out"' EXIT
ip link set "$a" up && ip link set "$b" up
for _ in 1 2 3 4 5 6 7 8 9 10; do
  [ "$(cat /sys/class/net/$a/carrier 2>/dev/null)" = 1 ] && break
  sleep 0.1
done
"$bin" counters --format json --device "$a" >"$out"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exit $rc (expected 0)"; cat "$out"; exit 1; }
python3 - "$out" "$a" <<'PY'
import json, sys
doc, nd = json.load(open(sys.argv[1])), sys.argv[2]
data = doc["data"]
if not doc["params"]["link_source"].startswith("ethtool netlink (libnl"):
    print("SKIPPED: ethtool netlink not usable here:", doc["params"]["link_source"])
    sys.exit(77)
assert doc["errors"] == [], doc["errors"]
links = [l for l in data["links"] if l["netdev"] == nd]
assert len(links) == 1, data["links"]
l = links[0]
assert l["source"] == "ethtool netlink", l
assert l["speed_mbps"] == 10000, l
assert l["duplex"] == "full", l
assert l["link_up"] is True, l
assert data["optics"] == [], data["optics"]
msgs = [u["message"] for u in data["unavailable"] if u["source"] == "ethtool netlink " + nd]
assert msgs == ["not supported by the driver (EOPNOTSUPP): PAUSE_GET, FEC_GET, MODULE_EEPROM_GET"], msgs
print(f"ok: {nd}: {l['speed_mbps']} Mb/s {l['duplex']}, pause/FEC/module not supported (EOPNOTSUPP)")
PY
