#!/usr/bin/env bash
# Integration test of `fabdiag triage --hostfile --topology` on the emulated fabric (leaf bridges
# under a spine bridge, scripts/emucluster-fabric.sh; real MPI ranks, real sockets, tc faults).
# Scenarios, each asserted on the JSON verdict:
#   a) 9 nodes under 3 leaves, leaf2's uplink at 100mbit -> one suspect: leaf_uplink leaf2 with
#      node04..node06, no node suspect
#   b) 8 nodes under 2 leaves, leaf2's uplink at 100mbit -> one leaf_uplink suspect naming both
#      leaves (two leaves cannot tell which uplink), no node suspect
#   c) 8 nodes under 2 leaves, node03 at 100mbit        -> node03 is the only suspect
#   d) 8 nodes under 2 leaves, no fault                 -> no suspect, exit 0
# Prints each triage's wall time. Needs root (namespaces, tc) and mpirun; "SKIPPED: reason" otherwise.
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude triage-uplink-test "$1"

emu_workspace
fail=0 passed=0

up() { emu_up "$@"; }
triage() { # name, extra args...
  local name=$1; shift
  local t0=$SECONDS topo
  topo=$(. "$state/env" && echo "$EMU_TOPOLOGY")
  [ -s "$topo" ] || { echo "FAIL $name: no topology file in the state's env"; fail=$((fail + 1)); return; }
  "$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --topology "$topo" \
    --format json "$@" >"$out/$name.json" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  echo "  $name: exit $(cat "$out/$name.rc") after $((SECONDS - t0)) s" >&2
}

echo "a) 3 leaves, leaf2's uplink slow" >&2
up --nodes 9 --leaves 3 --slow-uplink leaf2=100mbit
triage a
check_suspects a 'rc == 1 and [(s["kind"], s.get("subject"), s["hosts"]) for s in S] == [("leaf_uplink", "leaf2", ["node04", "node05", "node06"])]'

echo "b) 2 leaves, leaf2's uplink slow" >&2
up --nodes 8 --leaves 2 --slow-uplink leaf2=100mbit
triage b
check_suspects b 'rc == 1 and len(S) == 1 and S[0]["kind"] == "leaf_uplink" and S[0]["leaves"] == ["leaf1", "leaf2"] and len(S[0]["hosts"]) == 8'

echo "c) 2 leaves, node03 slow" >&2
up --nodes 8 --leaves 2 --slow-node node03=100mbit
triage c
check_suspects c 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("node", ["node03"])]'

echo "d) 2 leaves, no fault" >&2
up --nodes 8 --leaves 2
triage d
check_suspects d 'rc == 0 and S == []'

echo "triage_uplink_emu: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
