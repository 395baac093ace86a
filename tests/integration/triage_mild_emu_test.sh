#!/usr/bin/env bash
# Integration test of the adaptive node threshold and pair size (docs/localization.md#the-node-threshold,
# #pair-test-size) through plain `fabdiag triage --hostfile` (no threshold or size flags) on the
# emulated cluster, each scenario asserted on the JSON verdict:
#   m) 8 nodes at 200mbit, node03 at 120mbit (0.6x its peers) -> node03 the only suspect, the node
#      ratio adaptive (above the fixed 0.5 that cleared it) and recorded in params
#   g) node03 at 1gbit, the others unthrottled                  -> node03 the only suspect, the pair
#      size grown past 1 MiB (where the bucket let node03 pass at 0.89x)
#   h1..h3) no fault, three runs                                -> no suspect, exit 0
# Sweeps are skipped (--no-sweeps): they do not take part in the verdict and cost most of the time.
# Needs root (namespaces, tc) and mpirun; prints "SKIPPED: reason" and exits 77 otherwise.
set -u
. "$(dirname "$0")/lib.sh"
emu_prelude triage-mild-test "$1"

emu_workspace
fail=0 passed=0

up() { emu_up --nodes 8 "$@"; }
triage() { # name, extra args...
  local name=$1; shift
  local t0=$SECONDS
  "$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json --no-sweeps "$@" \
    >"$out/$name.json" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  echo "  $name: exit $(cat "$out/$name.rc") after $((SECONDS - t0)) s, $(python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); p=d["params"]
print("node ratio %s (%s), pair size %s" % (p.get("node_ratio"), p.get("node_ratio_source"), p.get("pair_size_bytes")))' "$out/$name.json" 2>/dev/null)" >&2
}

echo "m) a node at 0.6x of its peers" >&2
peers=()
for n in 01 02 04 05 06 07 08; do peers+=(--slow-node "node$n=200mbit"); done
up "${peers[@]}" --slow-node node03=120mbit
triage m
check_suspects m 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("node", ["node03"])] and d["params"]["node_ratio_source"] == "adaptive" and d["params"]["node_ratio"] > 0.6 and "sigma" in d["params"]["node_ratio_why"]'

echo "g) a 1 Gbit node among unthrottled ones" >&2
up --slow-node node03=1gbit
triage g
check_suspects g 'rc == 1 and [(s["kind"], s["hosts"]) for s in S] == [("node", ["node03"])] and d["params"]["pair_size_source"] == "auto" and d["params"]["pair_size_bytes"] > (1 << 20) and len(d["data"]["pairwise"]["pair_sizing"]["steps"]) >= 2'

for k in 1 2 3; do
  echo "h$k) no fault" >&2
  up
  triage "h$k"
  check_suspects "h$k" 'rc == 0 and S == [] and d["errors"] == [] and d["params"]["node_ratio_source"] == "adaptive"'
done

echo "explicit flags win: --node-ratio 0.5 --pair-size 1M" >&2
up "${peers[@]}" --slow-node node03=120mbit
triage x --node-ratio 0.5 --pair-size 1M
check_suspects x 'd["params"]["node_ratio"] == 0.5 and d["params"]["node_ratio_source"] == "flag" and d["params"]["pair_size_bytes"] == (1 << 20) and d["params"]["pair_size_source"] == "fixed" and "pair_sizing" not in d["data"]["pairwise"]'

echo "triage_mild_emu: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
