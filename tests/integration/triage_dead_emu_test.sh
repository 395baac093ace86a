#!/usr/bin/env bash
# Integration test of `fabdiag triage --hostfile` on the emulated cluster: direction, dead links
# and small clusters (docs/localization.md#direction, #dead-links-and-hosts, #small-clusters).
# Plain runs (no --timeout, no --expected-rate, no thresholds), each asserted on the JSON verdict:
#   a) 6 nodes, node04's egress at 100mbit      -> node node04, direction send
#   b) 6 nodes, the link node02<->node05 at 10kbit -> dead link node02<->node05 named, no node
#                                                  named, exit 1 well within the default deadline
#   c) 3 nodes, node02 at 100mbit both ways      -> node node02
#   d) 2 nodes, node02's egress at 100mbit       -> pair node02 -> node01 ("one of these two"), direction send
#   e) 3 nodes, no fault                         -> no suspect, exit 0
# Needs root (namespaces, tc) and mpirun; prints "SKIPPED: reason" and exits 77 otherwise.
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude triage-dead-test "$1"

emu_workspace
fail=0 passed=0

up() { # nodes, faults...
  local n=$1; shift
  emu_up --nodes "$n" "$@"
}
triage() { # name, extra args...
  local name=$1; shift
  local t0=$SECONDS
  "$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json "$@" \
    >"$out/$name.json" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  echo $((SECONDS - t0)) >"$out/$name.s"
  echo "  $name: exit $(cat "$out/$name.rc") after $(cat "$out/$name.s") s" >&2
}

echo "a) an egress-only node" >&2
up 6 --egress-only-node node04=100mbit
triage a
check_suspects a 'rc == 1 and [(s["kind"], s["hosts"], s.get("direction")) for s in S] == [("node", ["node04"], "send")]'

echo "b) a 10 kbit link" >&2
up 6 --slow-link node02,node05=10kbit
triage b
check_suspects b 'rc == 1 and [(s["kind"], s["hosts"], s.get("dead")) for s in S] == [("link", ["node02", "node05"], True)] and any(f["code"] == "dead_link" and f["message"].startswith("dead link node02<->node05: no completion in ") for f in d["findings"])'
secs=$(cat "$out/b.s")
deadline=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["params"]["timeout_s"]))' "$out/b.json" 2>/dev/null || echo 0)
if [ "$deadline" -gt 0 ] && [ "$secs" -lt "$deadline" ] && grep -q "not complete after" "$out/b.err"; then
  passed=$((passed + 1)); echo "ok   b: named after $secs s, within the default deadline of $deadline s, with a heartbeat"
else
  fail=$((fail + 1)); echo "FAIL b: $secs s against a deadline of $deadline s, heartbeat lines: $(grep -c 'not complete after' "$out/b.err")"
fi

echo "c) a slow node among three" >&2
up 3 --slow-node node02=100mbit
triage c
check_suspects c 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("node", ["node02"])]'

echo "d) two nodes, one slow direction" >&2
up 2 --egress-only-node node02=100mbit
triage d
check_suspects d 'rc == 1 and [(s["kind"], s["hosts"], s.get("direction")) for s in S] == [("pair", ["node02", "node01"], "send")] and any(f["code"] == "slow_pair" for f in d["findings"])'

echo "e) three healthy nodes" >&2
up 3
triage e
check_suspects e 'rc == 0 and S == [] and d["errors"] == []'

echo "triage_dead_emu: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
