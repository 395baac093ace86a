#!/usr/bin/env bash
# Integration test on the emulated cluster (scripts/emucluster.sh): 4 nodes, node03 slowed to
# 100 Mbit/s with tbf, one real MPI rank per network namespace. `fabdiag pairwise` must name
# node03 as the only slow node (exit 1, error L2 slow_node) and call no link slow.
# Usage: pairwise_emu_test.sh FABDIAG_BINARY. Needs root, mpirun, python3 and the kernel's netns
# and tbf; exits 77 ("SKIPPED: reason") without them, or when an emulated cluster is already up
# (someone else's: there is one per machine and "up" would replace it).
set -u
bin=${1:?usage: $0 FABDIAG_BINARY}
src=$(cd "$(dirname "$0")/../.." && pwd)
emu=${EMUCLUSTER:-$src/scripts/emucluster.sh}
[ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root (network namespaces)"; exit 77; }
for t in mpirun python3 ip tc; do
  command -v "$t" >/dev/null 2>&1 || { echo "SKIPPED: $t not found"; exit 77; }
done
[ -x "$emu" ] || { echo "SKIPPED: $emu not found"; exit 77; }
if "$emu" status >/dev/null 2>&1; then
  echo "SKIPPED: an emulated cluster is already up (in use); not replacing it"; exit 77
fi

tmp=$(mktemp -d)
state=${FABDIAG_EMU_STATE:-/tmp/fabdiag-emucluster}
holders=()
cleanup() {
  if ! timeout 90 "$emu" down >/dev/null 2>&1; then
    # An older emucluster.sh let its holder processes inherit the lock, so "down" could not get
    # it: end the holders this test started (by pid) and try once more.
    ((${#holders[@]})) && kill "${holders[@]}" 2>/dev/null
    sleep 0.5
    timeout 90 "$emu" down >/dev/null 2>&1 || echo "WARNING: '$emu down' failed; run it by hand" >&2
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
if ! "$emu" up --nodes 4 --slow-node node03=100mbit >"$tmp/up.log" 2>&1; then
  # Everything it needs was checked above: a failing "up" is a failure, as in triage_emu_test.sh.
  echo "FAIL: could not bring the emulated cluster up:"; tail -3 "$tmp/up.log"; exit 1
fi
for f in "$state"/node*/holder.pid; do [ -f "$f" ] && holders+=("$(cat "$f")"); done
read -r -a args <<<"$(tr '\n' ' ' <"$state/mpirun-args")"
# 1 MiB x (1 warm-up + 2) per pair: node03's pairs take ~0.2 s each at 100 Mbit/s.
timeout 120 mpirun "${args[@]}" -np 4 "$bin" pairwise --size 1M -n 2 --format json -q \
  >"$tmp/pairwise.json" 2>"$tmp/pairwise.err"
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: exit $rc, expected 1 (a slow node found)"; grep -v setpgid "$tmp/pairwise.err" | tail -5; exit 1; }
python3 - "$tmp/pairwise.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
d = doc["data"]
fails = 0
def check(what, ok):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += 0 if ok else 1
check("hosts are the namespaces' host names", d["hosts"] == ["node01", "node02", "node03", "node04"])
check("node03 is the only slow node", [o["host"] for o in d["outlier_nodes"]] == ["node03"])
o = d["outlier_nodes"][0] if d["outlier_nodes"] else {}
check("judged on 3 partners, far below the fleet", o.get("partners") == 3 and o.get("ratio", 1) < 0.2)
check("no slow link", d["outlier_links"] == [])
check("finding: error L2 slow_node node03", [(f["severity"], f["layer"], f["code"], f["subject"])
      for f in doc["findings"] if f["severity"] != "info"] == [("error", "L2", "slow_node", "node03")])
m = d["matrix_bytes_per_s"]
check("node03's cells are the dark ones", max(m[2][j] for j in (0, 1, 3)) < min(m[i][j]
      for i in (0, 1, 3) for j in (0, 1, 3) if i != j))
sys.exit(1 if fails else 0)
PY
