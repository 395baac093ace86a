#!/usr/bin/env bash
# Localization at scale (a benchmark, not a test): runs the real triage walk against a simulated
# fabric of 64..16384 nodes (tests/sim/triage_sim.cpp) and prints rounds used, exact-set rate and
# false positives, against the targets of docs/ARCHITECTURE.md#performance-targets: 1-3 slow nodes
# found in <= 5 rounds, exact set in >= 97 % of trials, and all-pairs' N-1 rounds for comparison.
#   scripts/bench-localization.sh [TRIALS]     (default 10; 16k nodes take about a minute each)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
sim=${FABDIAG_BUILD_DIR:-$root/build}/tests/triage_sim
trials=${1:-10}
for n in 64 1024 4096 16384; do
  for slow in 1 3; do
    "$sim" --nodes "$n" --trials "$trials" --slow "$slow" --max-rounds 5 || true
  done
  "$sim" --nodes "$n" --trials "$trials" --slow 1 --fault 0.85 --max-rounds 5 || true  # mild fault
  "$sim" --nodes "$n" --trials "$trials" --slow 0 --max-rounds 5 || true
done
