#!/usr/bin/env bash
# bench-vs-reference.sh: a benchmark (not a test) of fabdiag's measurement overhead on the
# emulated cluster (docs/ARCHITECTURE.md#performance-targets):
#   1. pair bandwidth node01<->node02: fabdiag pairwise vs iperf3 --bidir (both directions at
#      once, like Sendrecv) and vs a raw MPI_Sendrecv loop (target: fabdiag >= 0.95x raw MPI);
#   2. all_reduce busbw over all nodes at sizes >= 1 MiB: fabdiag bench vs a minimal
#      MPI_Allreduce loop (perf/ref/allreduce_ref.c; target: within 3%).
# Prints ratios; exits 0 whatever they are (the machine is noisy: read them, rerun if in doubt).
#
# Usage: scripts/bench-vs-reference.sh [--bin PATH] [--up N] [--sizes "1M 4M 16M"] [--iters N]
#                                      [--pair-size 4M] [--iperf-seconds 3] [--repeat R]
#   --bin PATH   fabdiag binary (default: build/fabdiag under the repository root)
#   --up N       bring an emulated cluster of N nodes up first and take it down at the end;
#                without it, a cluster must already be up (emucluster.sh up --nodes 2+)
# Needs: root, mpicc, mpirun, iperf3, python3, and scripts/emucluster.sh (or $EMUCLUSTER).
# Traffic stays between the local network namespaces of the emulated cluster.
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/fabdiag
UP=0
SIZES="1M 4M 16M"
ITERS=10
PAIR_SIZE=4M
IPERF_SECONDS=3
REPEAT=3
EMUCLUSTER=${EMUCLUSTER:-$ROOT/scripts/emucluster.sh}
STATE=${FABDIAG_EMU_STATE:-/tmp/fabdiag-emucluster}

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
while (($#)); do
	case $1 in
	--bin) BIN=$2; shift 2 ;;
	--up) UP=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	--iters) ITERS=$2; shift 2 ;;
	--pair-size) PAIR_SIZE=$2; shift 2 ;;
	--iperf-seconds) IPERF_SECONDS=$2; shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
for tool in mpicc mpirun iperf3 python3 ip numfmt; do command -v "$tool" >/dev/null || die "$tool not found"; done
[[ -x $BIN ]] || die "fabdiag binary '$BIN' not found (build it, or pass --bin)"

tmp=$(mktemp -d)
iperf_pid=
cleanup() {
	[[ -n $iperf_pid ]] && kill "$iperf_pid" 2>/dev/null || true
	rm -rf "$tmp"
	if ((UP > 0)); then
		"$EMUCLUSTER" down >/dev/null || echo "$PROG: warning: '$EMUCLUSTER down' failed; run it by hand" >&2
	fi
}
trap cleanup EXIT
if ((UP > 0)); then
	[[ -x $EMUCLUSTER ]] || die "emucluster.sh not found at $EMUCLUSTER (set EMUCLUSTER)"
	"$EMUCLUSTER" up --nodes "$UP" >/dev/null
fi
[[ -f $STATE/env && -f $STATE/mpirun-args ]] ||
	die "no emulated cluster at $STATE: run emucluster.sh up --nodes 4, or pass --up 4"
# shellcheck disable=SC1091
source "$STATE/env"
((EMU_NODES >= 2)) || die "the emulated cluster has $EMU_NODES node(s); need at least 2"
[[ -z ${EMU_FAULTS:-} ]] || echo "note: faults are injected ($EMU_FAULTS): ratios measure them too"
read -r -a MPI_ARGS <<<"$(tr '\n' ' ' <"$STATE/mpirun-args")"

mpicc -O2 -o "$tmp/allreduce_ref" "$ROOT/perf/ref/allreduce_ref.c"
pair_bytes=$(numfmt --from=iec "${PAIR_SIZE%B}")
# Reference and fabdiag binaries must be reachable inside the namespaces: both are on this
# machine's filesystem, which the namespaces share.

# Open MPI's rsh launcher warns about setpgid inside the namespaces; the warning is harmless.
mpirun() { command mpirun "$@" 2> >(grep -v 'plm:rsh: Warning: setpgid' >&2); }
# jval FILE EXPR: evaluates the Python expression EXPR over the JSON document `d` in FILE.
jval() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
gbs() { awk -v x="$1" 'BEGIN { printf "%.3f", x / 1e9 }'; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== pair node01<->node02, $PAIR_SIZE each way, bytes/s per direction (median of $REPEAT runs)"
fab_runs="" raw_runs="" iperf_runs=""
for ((r = 0; r < REPEAT; r++)); do
	mpirun "${MPI_ARGS[@]}" -np 2 "$BIN" pairwise --size "$PAIR_SIZE" -n "$ITERS" --format json -q \
		>"$tmp/pair.json" || [[ $? == 1 ]]
	fab_runs+=" $(jval "$tmp/pair.json" '(d["data"]["matrix_bytes_per_s"][0][1] + d["data"]["matrix_bytes_per_s"][1][0]) / 2')"
	raw_runs+=" $(mpirun "${MPI_ARGS[@]}" -np 2 "$tmp/allreduce_ref" sendrecv "$pair_bytes" "$ITERS" 1 |
		sed -n 's/.*bytes_per_s=\([0-9.e+]*\).*/\1/p')"
	ip netns exec node02 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	iperf_pid=$!
	sleep 0.3
	ip netns exec node01 iperf3 -c "$EMU_NET.2" -p 5201 --bidir -t "$IPERF_SECONDS" -J >"$tmp/iperf.json"
	wait "$iperf_pid" 2>/dev/null || true
	iperf_pid=
	iperf_runs+=" $(jval "$tmp/iperf.json" '(d["end"]["sum_received"]["bits_per_second"] + d["end"]["sum_received_bidir_reverse"]["bits_per_second"]) / 2 / 8')"
done
fab=$(median <<<"$fab_runs") raw=$(median <<<"$raw_runs") iperf=$(median <<<"$iperf_runs")
printf '%-28s %10s GB/s\n' "iperf3 --bidir" "$(gbs "$iperf")" "raw MPI_Sendrecv loop" "$(gbs "$raw")" \
	"fabdiag pairwise" "$(gbs "$fab")"
printf 'fabdiag / raw MPI   = %s   (target >= 0.95)\n' "$(ratio "$fab" "$raw")"
printf 'fabdiag / iperf3    = %s   (docs/emulation.md#measured-rates: raw MPI reaches ~0.4-0.5)\n' "$(ratio "$fab" "$iperf")"
printf 'raw MPI / iperf3    = %s\n' "$(ratio "$raw" "$iperf")"

echo
echo "== all_reduce busbw over $EMU_NODES nodes, float, $ITERS iterations (median of $REPEAT runs)"
printf '%-10s %14s %14s %8s\n' size "fabdiag GB/s" "ref loop GB/s" ratio
for size in $SIZES; do
	bytes=$(numfmt --from=iec "$size")
	fab_runs="" ref_runs=""
	for ((r = 0; r < REPEAT; r++)); do
		mpirun "${MPI_ARGS[@]}" -np "$EMU_NODES" "$BIN" bench all_reduce -b "$size" -e "$size" \
			-w 2 -n "$ITERS" --format json -q >"$tmp/bench.json" || [[ $? == 1 ]]
		fab_runs+=" $(jval "$tmp/bench.json" 'd["data"]["results"][0]["busbw_bytes_per_s"]')"
		ref_runs+=" $(mpirun "${MPI_ARGS[@]}" -np "$EMU_NODES" "$tmp/allreduce_ref" allreduce "$bytes" "$ITERS" 2 |
			sed -n 's/.*busbw_bytes_per_s=\([0-9.e+]*\).*/\1/p')"
	done
	fab=$(median <<<"$fab_runs") ref=$(median <<<"$ref_runs")
	printf '%-10s %14s %14s %8s\n' "$size" "$(gbs "$fab")" "$(gbs "$ref")" "$(ratio "$fab" "$ref")"
done
echo "(target: fabdiag / ref >= 0.97 at sizes >= 1 MiB)"
