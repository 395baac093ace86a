#!/usr/bin/env bash
# Every triage rank reads its counters through the same pipeline as `fabdiag counters`
# (collect/counter_pipeline.h): on a 4-node emulated cluster whose nodes carry a fixture with an
# optical module (tests/fixtures/optics-low-rx), triage's data.nodes[] holds, per host, exactly
# the link facts and optics that `fabdiag counters` shows for that node's tree, and the module's
# low receive power is a finding on every host.
# Needs root (namespaces) and mpirun; prints "SKIPPED: reason" and exits 77 otherwise.
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude facts-test "$1"
out=$(mktemp -d)
trap '"$emu" down --state "$state" >/dev/null 2>&1; rm -rf "$state" "$out"' EXIT
"$emu" up --nodes 4 --state "$state" --sysfs "$root/tests/fixtures/optics-low-rx/tree" > "$out/up.log" 2>&1 \
  || { echo "FAIL: emucluster up"; cat "$out/up.log"; exit 1; }
"$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json \
  --sysfs-root "$state/{host}/sys" > "$out/t.json" 2> "$out/t.err"
echo "triage exit $?" >&2
for h in node01 node02 node03 node04; do
  "$bin" counters -q --sysfs-root "$state/$h/sys" --format json > "$out/$h.json" 2>/dev/null
done
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
try:
    t = json.load(open(os.path.join(out, "t.json")))
except Exception as e:
    print("FAIL: triage result is not JSON:", e, open(os.path.join(out, "t.err")).read()[-2000:]); sys.exit(1)
nodes = {n["host"]: n for n in t["data"].get("nodes", [])}
ok = True
for h in ["node01", "node02", "node03", "node04"]:
    c = json.load(open(os.path.join(out, h + ".json")))["data"]
    n = nodes.get(h)
    if n is None:
        print("FAIL: no data.nodes entry for", h); ok = False; continue
    if not c["optics"]:
        print("FAIL: counters shows no optics for", h, "(fixture?)"); ok = False
    if n["links"] != c["links"] or n["optics"] != c["optics"]:
        print("FAIL:", h, "triage facts differ from counters:", json.dumps(n)[:400], json.dumps(c["optics"])[:400]); ok = False
    if not any(f["subject"].startswith(h + ":") and "optics" in f["code"] + f["subject"] for f in t["findings"]):
        print("FAIL: no optics finding for", h, [f["code"] + " " + f["subject"] for f in t["findings"]][:10]); ok = False
print("ok   triage nodes carry the counters' link and optics facts" if ok else "")
sys.exit(0 if ok else 1)
PY
