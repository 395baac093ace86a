#!/usr/bin/env bash
# Integration test of the straggler rule (docs/localization.md#stragglers) through plain
# `fabdiag triage --hostfile` on the emulated cluster: 4 nodes, every link at 200mbit (so a pair test
# needs little CPU), and
#   s) node03's fabdiag rank held to 6 % of one CPU by a cgroup CPU quota (cpu.max on cgroup v2,
#      cpu.cfs_quota_us on v1) once mpirun has started it: its pair tests stay fine, but it enters
#      every collective of the sweeps late -> node03 the only suspect, kind straggler, exit 1;
#   h) no fault -> no suspect, exit 0.
# The quota is applied from outside (the rank found by its network namespace), never by a test hook.
# Needs root (namespaces, tc, cgroups) and mpirun; prints "SKIPPED: reason" and exits 77 otherwise.
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude triage-straggler-test "$1"

cg=""
# A cgroup with a CPU quota of 1.5 ms per 25 ms (6 % of one CPU); sets cg, or returns 1.
make_cgroup() {
  local v2=/sys/fs/cgroup v1=/sys/fs/cgroup/cpu name=fabdiag-straggler-$$
  if [ -f "$v2/cgroup.controllers" ] && grep -qw cpu "$v2/cgroup.controllers"; then
    grep -qw cpu "$v2/cgroup.subtree_control" 2>/dev/null || echo +cpu >"$v2/cgroup.subtree_control" 2>/dev/null
    if mkdir "$v2/$name" 2>/dev/null; then
      echo "1500 25000" >"$v2/$name/cpu.max" 2>/dev/null && { cg=$v2/$name; return 0; }
      rmdir "$v2/$name"
    fi
  fi
  if [ -f "$v1/cpu.cfs_quota_us" ] && mkdir "$v1/$name" 2>/dev/null; then
    echo 25000 >"$v1/$name/cpu.cfs_period_us" && echo 1500 >"$v1/$name/cpu.cfs_quota_us" && { cg=$v1/$name; return 0; }
    rmdir "$v1/$name"
  fi
  return 1
}
make_cgroup || { echo "SKIPPED: cannot make a cgroup with a CPU quota (cgroup v2 cpu.max or v1 cpu)"; exit 77; }

watcher=""
emu_cleanup_extra() {
  [ -z "$watcher" ] || kill "$watcher" 2>/dev/null
  [ -z "$cg" ] || rmdir "$cg" 2>/dev/null
}
emu_workspace
fail=0 passed=0

up() {
  local n args=()
  for n in 01 02 03 04; do args+=(--slow-node "node$n=200mbit"); done
  emu_up --nodes 4 "${args[@]}"
}

# Waits (at most 60 s x slow) for the fabdiag rank inside NODE (same network namespace as the node's
# holder) and moves it into the quota cgroup; writes its pid to $out/throttled.
throttle_rank_of() {
  local node=$1 ns pid i
  ns=$(readlink "/proc/$(cat "$state/$node/holder.pid")/ns/net") || return 1
  for i in $(seq $((600 * slow))); do
    for pid in $(pgrep -x fabdiag); do
      [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$ns" ] || continue
      echo "$pid" >"$cg/cgroup.procs" && echo "$pid" >"$out/throttled" && return 0
    done
    sleep 0.1
  done
  return 1
}

triage() { # name
  local name=$1 t0=$SECONDS
  "$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json \
    --pair-size 4M --sweep-min 256K --sweep-max 1M >"$out/$name.json" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  echo "  $name: exit $(cat "$out/$name.rc") after $((SECONDS - t0)) s" >&2
  python3 - "$out/$name.json" >&2 <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["data"]["bench"]:
    for r in b["results"]:
        ms = lambda v: " ".join("%.1f" % (x * 1e3) for x in v)
        print("    %s %7d B: entry lateness ms [%s], wait ms [%s], step %.1f ms" % (
            b["collective"], r["size_bytes"], ms(r.get("entry_lateness_s", [])), ms(r.get("wait_s", [])),
            r.get("skew_iteration_s", 0) * 1e3))
PY
}

echo "s) node03's rank at 6 % of a CPU" >&2
up
throttle_rank_of node03 & watcher=$!
triage s
wait "$watcher"; watcher=""
[ -s "$out/throttled" ] || { echo "FAIL s: node03's rank was never found to throttle"; fail=$((fail + 1)); }
check_suspects s 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("straggler", ["node03"])] and any(f["code"] == "straggler" for f in d["findings"])'

echo "h) no fault" >&2
up
triage h
check_suspects h 'rc == 0 and S == [] and d["errors"] == []'

echo "triage_straggler_emu: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
