#!/usr/bin/env bash
# A real prometheus-node-exporter (textfile collector only, loopback) serves what
# `fabdiag counters --format prometheus -o DIR/fabdiag.prom` writes: the fabdiag samples with
# their values and types, no textfile scrape error, and an atomic rewrite is picked up.
# Installs nothing: scripts/setup.sh lists prometheus-node-exporter.
set -u
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[ -n "$exporter" ] || { echo "SKIPPED: prometheus-node-exporter not installed (scripts/setup.sh installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 not installed (needed to scrape and parse)"; exit 77; }

dir=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/exporter.log" ] && tail -5 "$dir/exporter.log"; exit 1; }

"$bin" counters --format prometheus --sysfs-root "$src/tests/fixtures/optics-low-rx/tree" -o "$dir/fabdiag.prom"
rc=$?
[ "$rc" = 1 ] || fail "fabdiag exit $rc (expected 1: the optics-low-rx fixture has one warn finding)"
[ -s "$dir/fabdiag.prom" ] || fail "no $dir/fabdiag.prom written"
ls -a "$dir" | grep -q '\.tmp\.' && fail "a temporary file was left next to the textfile"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$exporter" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$dir" --web.listen-address="127.0.0.1:$port" >"$dir/exporter.log" 2>&1 &
pid=$!

# scrape PORT PHASE: waits for the exporter, then checks the samples of PHASE (optics | roce).
scrape() {
  python3 - "$1" "$2" "$dir/fabdiag.prom" <<'PY'
import re, sys, time, urllib.request
port, phase, prom = sys.argv[1], sys.argv[2], sys.argv[3]
text = None
for _ in range(100):
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
        break
    except Exception:
        time.sleep(0.1)
if text is None:
    sys.exit("exporter did not answer on 127.0.0.1:%s within 10 s" % port)

line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
def parse(body):
    samples, types = {}, {}
    for line in body.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            types[name] = typ
            continue
        if not line or line.startswith("#"):
            continue
        m = line_re.match(line)
        assert m, f"unparsable line: {line}"
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        labels = tuple(sorted((k, v) for k, v in labels.items() if v != ""))  # empty = absent
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples, types

served, served_types = parse(text)
written, written_types = parse(open(prom).read())
def get(name, **labels):
    key = (name, tuple(sorted(labels.items())))
    assert key in served, f"not served: {name}{labels}"
    return served[key]

assert get("node_textfile_scrape_error") == 0, "node_textfile_scrape_error != 0"
missing = [k for k in written if k not in served]
assert not missing, f"{len(missing)} written samples not served, e.g. {missing[:3]}"
for k, v in written.items():
    assert abs(served[k] - v) <= 1e-9 * max(1.0, abs(v)), f"{k}: served {served[k]}, written {v}"
for name, typ in written_types.items():
    assert served_types.get(name) == typ, f"{name}: served type {served_types.get(name)}, written {typ}"

if phase == "optics":
    nd = dict(device="ens1f0np0", netdev="ens1f0np0")
    assert abs(get("fabdiag_optics_rx_power_watts", lane="1", **nd) - 7.94e-05) < 1e-12
    assert get("fabdiag_optics_temperature_celsius", **nd) == 38.5
    assert abs(get("fabdiag_optics_rx_power_low_warning_watts", **nd) - 1e-4) < 1e-12
    assert get("fabdiag_traffic_bytes_total", counter="rx_bytes", **nd) == 512e9
    assert get("fabdiag_counters_findings", severity="warn") == 1
    assert served_types["fabdiag_traffic_bytes_total"] == "counter"
    assert served_types["fabdiag_optics_rx_power_watts"] == "gauge"
else:
    port_labels = dict(device="mlx5_0", port="1", netdev="ens1f0np0")
    assert get("fabdiag_retransmit_total", counter="out_of_sequence", **port_labels) == 200
    assert get("fabdiag_traffic_bytes_total", counter="port_xmit_data", **port_labels) == 1.01e12
    assert get("fabdiag_pause_seconds_total", counter="rx_prio3_pause_duration",
               device="ens1f0np0", netdev="ens1f0np0") == 0.35
    assert not any(k[0].startswith("fabdiag_optics_") for k in served), "old optics samples still served"
n = sum(1 for k in served if k[0].startswith("fabdiag_"))
print(f"ok ({phase}): {n} fabdiag samples served by node_exporter, values and types as written")
PY
}

scrape "$port" optics || fail "scrape after the first write"
# Rewrite the file atomically with another node's counters: the exporter must serve the new set.
"$bin" counters --format prometheus --sysfs-root "$src/tests/fixtures/roce-rising/before" \
  --after-sysfs-root "$src/tests/fixtures/roce-rising/after" --interval 10 -o "$dir/fabdiag.prom"
rc=$?
[ "$rc" = 1 ] || fail "fabdiag exit $rc on roce-rising (expected 1)"
scrape "$port" roce || fail "scrape after the rewrite"
echo "ok: node_exporter $("$exporter" --version 2>&1 | head -1 | awk '{print $3}') served both textfiles"
