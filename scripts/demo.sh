#!/usr/bin/env bash
# The main job, end to end on this machine: build fabdiag, bring up an 8-node emulated cluster
# (network namespaces, real MPI ranks over real sockets) with one throttled node, run
# `fabdiag triage` on it, print the verdict, and tear the cluster down.
#
#   scripts/demo.sh [--nodes N] [--slow-node NAME=RATE] [--slow-link A,B=RATE] [--format table|json|md]
#
# Needs root (network namespaces and traffic control). Exit code: fabdiag triage's (1 = suspects).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nodes=8 format=table faults=() fault_given=0
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --slow-node|--slow-link) faults+=("$1" "$2"); fault_given=1; shift 2 ;;
    --no-fault) fault_given=1; shift ;;
    --format) format=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "demo: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$fault_given" = 1 ] || faults=(--slow-node node03=100mbit)
if [ "$(id -u)" -ne 0 ]; then echo "demo: needs root (network namespaces, tc); run with sudo" >&2; exit 2; fi

echo "demo: building fabdiag" >&2
# Only what the demo runs (the fabdiag binary, CMake target fabdiag-main); scripts/test.sh builds
# the tests.
bin=$(FABDIAG_BUILD_TARGET=fabdiag-main "$root/scripts/build.sh")
state=${FABDIAG_EMU_STATE:-/tmp/fabdiag-emucluster}
echo "demo: bringing up $nodes emulated nodes ${faults[*]:-(no fault)}" >&2
# up refuses (and we stop) when someone else's cluster is up; only then is the teardown ours.
"$root/scripts/emucluster.sh" up --nodes "$nodes" --state "$state" "${faults[@]}" >&2
trap '"$root/scripts/emucluster.sh" down --state "$state" >/dev/null 2>&1 || true' EXIT
echo "demo: fabdiag triage --hostfile $state/hostfile --mpirun-args-file $state/mpirun-args" >&2
set +e
"$bin" triage --hostfile "$state/hostfile" --mpirun-args-file "$state/mpirun-args" --format "$format"
rc=$?
set -e
echo "demo: triage exit code $rc (0 healthy, 1 suspects named); tearing the cluster down" >&2
exit $rc
