#!/usr/bin/env bash
# scripts/fabdiag-nightly.sh without a cluster (docs/nightly.md): the bench is a stand-in that
# writes a saved pairwise result (tests/fixtures/accept: healthy, and faulty with node03's pairs
# at ~28 of ~50 GB/s) where the script asks for it, the counters read the dgx8 fixture tree.
# Checks the exit codes (0 first and healthy nights, silent; 1 one alert naming node03, the run
# not appended; 0 when the confirming run does not repeat a drop; 4 a bench without a result, a held lock; 2 usage), the atomic textfile and its
# metrics, and the retention of the night folders.
set -u
bin=${1:?usage: $0 FABDIAG_BINARY}
src=$(cd "$(dirname "$0")/../.." && pwd)
script=$src/scripts/fabdiag-nightly.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/textfile"
# The stand-in bench: copies $1 to the path after -o (the script appends --format json -q -o FILE).
cat >"$tmp/bench.sh" <<'EOF'
src=$1; shift
while (($#)); do [ "$1" = -o ] && { cp "$src" "$2"; exit 0; }; shift; done
exit 3
EOF

night() { # NAME RESULT_FILE [extra options]: runs one night into $tmp/NAME.{out,rc}
  local name=$1 result=$2; shift 2
  bash "$script" --state-dir "$tmp/state" --textfile-dir "$tmp/textfile" --fabdiag "$bin" --window 0.2 --keep 3 \
    --counters-arg --sysfs-root --counters-arg "$src/tests/fixtures/dgx8" "$@" -- bash "$tmp/bench.sh" "$result" \
    >"$tmp/$name.out" 2>&1
  echo $? >"$tmp/$name.rc"
  cp "$tmp/textfile/fabdiag-nightly.prom" "$tmp/$name.prom" 2>/dev/null
}
expect() { # NAME PYTHON_CONDITION WHAT, over rc, out, prom (text), g(name), alerts, runs
  python3 - "$tmp" "$@" <<'PY' || fail=$((fail + 1))
import json, os, re, sys
tmp, name, cond, what = sys.argv[1:]
rc = int(open(f"{tmp}/{name}.rc").read())
out = open(f"{tmp}/{name}.out").read()
prom = open(f"{tmp}/{name}.prom").read() if os.path.exists(f"{tmp}/{name}.prom") else ""
def g(metric):
    m = re.search(r"^" + metric + r" (\S+)$", prom, re.M)
    return float(m.group(1)) if m else None
alerts = re.findall(r'^fabdiag_baseline_alert\{code="([^"]*)",severity="([^"]*)",subject="([^"]*)"\} 1$', prom, re.M)
h = f"{tmp}/state/baselines/nightly.history"
runs = len(json.load(open(h))["runs"]) if os.path.exists(h) else 0
leftover = [f for f in os.listdir(f"{tmp}/textfile") if f != "fabdiag-nightly.prom"]
ok = not leftover and eval(cond)
print(("ok: " if ok else "FAIL: ") + f"{name}: {what}")
if not ok:
    print(f"  rc={rc} alerts={alerts} runs={runs} leftover={leftover}\n  " + out[-1200:].replace("\n", "\n  "))
sys.exit(0 if ok else 1)
PY
}
# A stand-in whose first run is slow and the second healthy: one noisy measurement.
cat >"$tmp/noisy.sh" <<EOF
if [ -e "$tmp/noisy.once" ]; then bash "$tmp/bench.sh" "$src/tests/fixtures/accept/healthy/pairwise.json" "\$@"
else touch "$tmp/noisy.once"; bash "$tmp/bench.sh" "$src/tests/fixtures/accept/faulty/pairwise.json" "\$@"; fi
EOF
healthy=$src/tests/fixtures/accept/healthy/pairwise.json
faulty=$src/tests/fixtures/accept/faulty/pairwise.json

bash "$script" --textfile-dir "$tmp" -- true >"$tmp/u1.out" 2>&1; echo $? >"$tmp/u1.rc"
expect u1 'rc == 2 and "--state-dir DIR is required" in out' "usage: no --state-dir is exit 2"
bash "$script" --state-dir "$tmp/s2" --fabdiag "$bin" >"$tmp/u2.out" 2>&1; echo $? >"$tmp/u2.rc"
expect u2 'rc == 2 and "give the bench after --" in out' "usage: no bench is exit 2"
bash "$script" --state-dir "$tmp/s2" --fabdiag "$bin" --widnow 3 -- true >"$tmp/u3.out" 2>&1; echo $? >"$tmp/u3.rc"
expect u3 "rc == 2 and \"unknown option '--widnow'\" in out" "usage: a misspelt option is exit 2"

night n1 "$healthy"
expect n1 'rc == 0 and out == "" and runs == 1 and g("fabdiag_nightly_exit_code") == 0 and g("fabdiag_nightly_appended") == 1 and "fabdiag_port_state{" in prom and "fabdiag_baseline_alert" not in prom' \
  "first night: exit 0, silent, history started, counters in the textfile"
night n2 "$healthy"
expect n2 'rc == 0 and out == "" and runs == 2 and g("fabdiag_baseline_history_runs") == 1 and alerts == [] and re.search(r"^fabdiag_pair_bandwidth_ratio\{host=\"node03\"\} 1$", prom, re.M)' \
  "healthy night: exit 0, diffed (node03's pairs at ratio 1), appended"
night n3 "$faulty"
expect n3 'rc == 1 and alerts == [("node_bandwidth_regression", "warn", "node03")] and runs == 2 and g("fabdiag_nightly_appended") == 0 and g("fabdiag_nightly_alerts") == 1 and [l for l in out.splitlines() if l.startswith("ALERT")] == ["ALERT baseline: warn node_bandwidth_regression node03"] and "node03" in out' \
  "node03 slow: exit 1, exactly one alert naming node03, printed with the diff, not appended"
# The alerting night's textfile as a real node_exporter serves it (skipped where it is not installed).
exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [ -n "$exporter" ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  "$exporter" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$tmp/textfile" \
    --web.listen-address="127.0.0.1:$port" >"$tmp/exporter.log" 2>&1 &
  exporter_pid=$!
  python3 - "$port" <<'PY' || fail=$((fail + 1))
import sys, time, urllib.request
text = None
for _ in range(100):
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=2).read().decode()
        break
    except Exception:
        time.sleep(0.1)
ok = text is not None and "node_textfile_scrape_error 0" in text and \
    'fabdiag_baseline_alert{code="node_bandwidth_regression",severity="warn",subject="node03"} 1' in text and \
    "fabdiag_nightly_exit_code 1" in text and 'fabdiag_pair_bandwidth_ratio{host="node03"}' in text
print(("ok: " if ok else "FAIL: ") + "node_exporter serves the alerting night's textfile without a scrape error")
sys.exit(0 if ok else 1)
PY
  kill "$exporter_pid"; wait "$exporter_pid" 2>/dev/null
else
  echo "SKIPPED (this part): prometheus-node-exporter not installed"
fi
night n4 "$tmp/no-such-result.json"
expect n4 'rc == 4 and "GAP the bench gave no result" in out and runs == 2 and g("fabdiag_nightly_gaps") == 1' \
  "a bench without a result: exit 4, the gap said"
night n5 "$healthy"
expect n5 'rc == 0 and runs == 3 and alerts == [] and len(os.listdir(f"{tmp}/state/runs")) == 3' \
  "healthy again: exit 0, appended; --keep 3 night folders kept of 6"
bash "$script" --state-dir "$tmp/state" --textfile-dir "$tmp/textfile" --fabdiag "$bin" --window 0.2 --keep 3 \
  --counters-arg --sysfs-root --counters-arg "$src/tests/fixtures/dgx8" -- bash "$tmp/noisy.sh" >"$tmp/n7.out" 2>&1
echo $? >"$tmp/n7.rc"; cp "$tmp/textfile/fabdiag-nightly.prom" "$tmp/n7.prom"
expect n7 'rc == 0 and out == "" and alerts == [] and g("fabdiag_nightly_unconfirmed_alerts") == 1 and g("fabdiag_nightly_appended") == 1 and runs == 3 and "fabdiag_baseline_findings{severity=\"warn\"} 0" in prom' \
  "a slow first bench that the confirming run does not repeat: no alert, the second run appended"
flock "$tmp/state/lock" sleep 3 &
holder=$!
sleep 0.5
night n6 "$healthy"
wait "$holder"
expect n6 'rc == 4 and "still holds" in out' "a night still running holds the lock: the next one exits 4"

[ "$fail" = 0 ] || { echo "FAIL: $fail check(s)"; exit 1; }
echo "ok: nightly script"
