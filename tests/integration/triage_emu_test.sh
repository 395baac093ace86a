#!/usr/bin/env bash
# Integration test of `fabdiag triage --hostfile` on the emulated cluster (real MPI ranks in
# network namespaces, real sockets, tc faults). Scenarios, each asserted on the JSON verdict:
#   a) 8 nodes, node03 throttled both ways  -> the only suspect is node node03
#   b) the link node02<->node06 throttled   -> one suspect, kind link, neither node named
#   c) no fault                             -> no suspect, exit 0
#   d) node05's fixture counters gain symbol errors and link downs during the run
#                                           -> node05 named with that evidence (L4)
#   e1) a rank killed mid-run               -> exit 4 and an error naming its host
#   e2) a host that never answers           -> exit 4 within the timeout, error naming it
# Needs root (namespaces, tc) and mpirun; prints "SKIPPED: reason" and exits 77 otherwise.
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude triage-test "$1"

bumper=""
emu_cleanup_extra() { [ -z "$bumper" ] || kill "$bumper" 2>/dev/null; }
emu_workspace
fail=0 passed=0

up() { emu_up --nodes 8 "$@"; }
triage() { # name, extra args...
  local name=$1; shift
  local t0=$SECONDS
  "$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json "$@" \
    >"$out/$name.json" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  echo "  $name: exit $(cat "$out/$name.rc") after $((SECONDS - t0)) s" >&2
}

echo "a) one slow node" >&2
up --slow-node node03=100mbit
triage a
check_suspects a 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("node", ["node03"])] and len(S[0]["evidence"]) >= 4'

echo "b) one slow link" >&2
up --slow-link node02,node06=100mbit
triage b
check_suspects b 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("link", ["node02", "node06"])]'

echo "c) no fault" >&2
up
triage c
check_suspects c 'rc == 0 and S == [] and d["errors"] == []'

echo "d) counters rising on node05" >&2
up --sysfs "$root/tests/fixtures/rdma-nogpu"
ctr=$state/node05/sys/devices/pci0000:c0/0000:c0:03.1/0000:c1:00.0/infiniband/mlx5_1/ports/1/counters
[ -f "$ctr/symbol_error" ] || { echo "FAIL: fixture counters not found at $ctr"; exit 1; }
( while :; do
    for c in symbol_error link_downed; do v=$(cat "$ctr/$c"); echo $((v + 1)) >"$ctr/$c.tmp" && mv "$ctr/$c.tmp" "$ctr/$c"; done
    sleep 0.3
  done ) &
bumper=$!
triage d --sysfs-root "$state/{host}/sys"
kill "$bumper"; bumper=""
check_suspects d 'rc == 1 and [s["hosts"] for s in S] == [["node05"]] and S[0]["layer"] == "L4" and any("link_downed" in e["metric"] for e in S[0]["evidence"]) and any("symbol_error" in e["metric"] for e in S[0]["evidence"])'

echo "e1) a rank killed mid-run" >&2
up --slow-node node03=100mbit
( sleep 5
  for p in $(pgrep -f "triage --worker"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'EMU_NODE=node05' && kill -9 "$p"
  done ) &
triage e1 --timeout 60
wait
check_suspects e1 'rc == 4 and any(e["source"] == "node05" for e in d["errors"])'

echo "e2) a host that never answers" >&2
up
ip netns exec node06 ip link set eth0 down
t0=$SECONDS
triage e2 --timeout 15
check_suspects e2 'rc == 4 and any(e["source"] == "node06" and "node06" in e["message"] for e in d["errors"])'
[ $((SECONDS - t0)) -lt 60 ] || { echo "FAIL e2: took $((SECONDS - t0)) s"; fail=$((fail + 1)); }

echo "triage_emu: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
