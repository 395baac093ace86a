#!/usr/bin/env bash
# Live counters on this machine's real interfaces: `fabdiag counters --interval 1 --format json`
# must run (exit 0 or 1, never 2/3/4/70), print one JSON document of schema fabdiag.counters/1,
# and give non-negative per-second rates for lo and any eth*/en* netdev over a real window.
set -u
bin=$1
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed (needed to parse JSON)"; exit 77; }
[ -d /sys/class/net ] || { echo "SKIPPED: no /sys/class/net on this machine"; exit 77; }
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$bin" counters --interval 1 --all --format json >"$out" 2>"$err"
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
  echo "FAIL: exit $rc (expected 0 or 1)"
  cat "$err"
  exit 1
fi
grep -q "waiting 1 s" "$err" || { echo "FAIL: no progress line on stderr while waiting"; cat "$err"; exit 1; }
python3 - "$out" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "fabdiag.counters/1", doc["schema"]
data = doc["data"]
w = data["window_s"]
assert isinstance(w, (int, float)) and 0.9 < w < 30, f"window_s {w}"
counters = data["counters"]
assert counters, "no counters at all"
for c in counters:
    for k in ("device", "group", "name", "category", "unit", "value", "delta", "rate_per_s", "at_least"):
        assert k in c, f"{k} missing in {c}"
    if c["rate_per_s"] is not None:
        assert c["rate_per_s"] >= 0, c
netdevs = ["lo"] + [n for n in sorted(os.listdir("/sys/class/net")) if n.startswith(("eth", "en"))]
for nd in netdevs:
    rx = [c for c in counters if c["device"] == nd and c["group"] == "netdev_stats" and c["name"] == "rx_bytes"]
    assert rx, f"no netdev_stats rx_bytes for {nd}"
    assert rx[0]["rate_per_s"] is not None and rx[0]["rate_per_s"] >= 0, rx[0]
    assert rx[0]["delta"] is not None and rx[0]["delta"] >= 0, rx[0]
ports = {p["device"] for p in data["ports"]}
assert "lo" in ports, ports
for e in doc["errors"]:
    print("note: gap:", e)
print(f"ok: {len(counters)} counters over {w:.3f} s; checked {', '.join(netdevs)}")
PY
