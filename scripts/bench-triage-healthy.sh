#!/usr/bin/env bash
# False positives of triage on the emulated cluster (a benchmark, not a test): brings up N healthy
# nodes, runs `fabdiag triage` RUNS times, and counts suspects named
# (docs/ARCHITECTURE.md#performance-targets: 0 in 30 runs) and the wall time per verdict.
# Optionally with one fault to count exact verdicts instead:
#  scripts/bench-triage-healthy.sh [RUNS] [--slow-node node03=100mbit]
# Needs root. Tears the cluster down at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-30}; shift || true
bin=$("$root/scripts/build.sh")
state=${FABDIAG_EMU_STATE:-/tmp/fabdiag-emucluster}
trap '"$root/scripts/emucluster.sh" down --state "$state" >/dev/null 2>&1 || true' EXIT
"$root/scripts/emucluster.sh" up --nodes 8 --state "$state" "$@" >/dev/null
suspects=0 runs_with=0 total_s=0 failed=0
for i in $(seq 1 "$runs"); do
  t0=$(date +%s.%N)
  "$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format json -q \
    >/tmp/fabdiag-bench-triage.json 2>/dev/null || true
  t1=$(date +%s.%N)
  n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["data"]["suspects"]) if not d["errors"] else -1)' /tmp/fabdiag-bench-triage.json 2>/dev/null || echo -1)
  total_s=$(python3 -c "print($total_s + $t1 - $t0)")
  if [ "$n" -lt 0 ]; then failed=$((failed + 1)); echo "run $i: failed"; continue; fi
  suspects=$((suspects + n)); [ "$n" -gt 0 ] && runs_with=$((runs_with + 1))
  echo "run $i: $n suspect(s), $(python3 -c "print(round($t1 - $t0, 1))") s"
done
echo "triage on 8 emulated nodes ${*:-(healthy)}: $runs runs, $runs_with with suspects, $suspects suspects in all, $failed failed runs, mean $(python3 -c "print(round($total_s / $runs, 1))") s per verdict"
