#!/usr/bin/env bash
# bench-vs-mpigraph.sh: a benchmark (not a test) of fabdiag's pair tests against LLNL's mpiGraph on
# the same nodes of the emulated cluster (issue 12, item 7: "pair tests measure what the link can
# do, within 5 % of mpiGraph's per-pair figure"). Every node is shaped (a tbf of --rate on both
# ends of its veth) and one node more (--slow-node), so every pair is bound by its link and not by
# the 2 shared cores. Runs, --repeat times each, in turn:
#   mpiGraph MSG ITERS WINDOW    MSG = --size / --window: WINDOW messages of MSG bytes per timed
#                                iteration, ITERS iterations per pair (mpiGraph's shift pattern:
#                                every rank sends to one and receives from another at once);
#   fabdiag pairwise --size SIZE -n ITERS   the same bytes per timed transfer and per pair, each
#                                direction alone (docs/localization.md#direction);
# and prints, per ordered pair src -> dst, fabdiag's rate (timed on dst) against mpiGraph's Recv
# matrix (timed on dst too; mpiGraph's Send matrix is timed on src, where a send completes when
# its data is queued, and is shown for reference), the median over the repeats, both in MiB/s
# (mpiGraph's MB is 2^20 bytes: MBsec = size * 1e6 / (1024*1024) over microseconds), the ratio
# fabdiag / mpiGraph per pair and overall (median, minimum, pairs below 0.95), and the wall-time
# ratio of the whole matrix (each mpirun, launch included).
# Exits 0 whatever the ratios are (a table, not a gate: the machine is noisy; rerun if in doubt).
#
# Usage: scripts/bench-vs-mpigraph.sh --mpigraph PATH [--bin PATH] [--nodes N] [--rate RATE]
#            [--slow-node NAME=RATE]... [--slow-link A,B=RATE]... [--size 4M] [--window 4]
#            [--iters 5] [--repeat 3] [--keep DIR]
#   --mpigraph PATH  the mpiGraph binary, built outside this repository from its public sources
#                    (github.com/LLNL/mpiGraph: mpicc -O2 -o mpiGraph mpiGraph.c); required
#   --bin PATH       fabdiag binary (default: build/fabdiag under the repository root)
#   --nodes N        emulated nodes (default 6)
#   --rate RATE      every node's shaping, both ways (default 200mbit; "none": unshaped, CPU-bound)
#   --slow-node, --slow-link   faults on top (default: --slow-node node03=100mbit; as emucluster.sh)
#   --size SIZE      bytes per timed transfer and direction (default 4M)
#   --window W       mpiGraph's outstanding messages per iteration (default 4: 4 x 1 MiB)
#   --iters N        timed iterations per pair, both tools (default 5)
#   --repeat R       runs of each tool (default 3)
#   --keep DIR       keep the raw outputs (mpiGraph .out, fabdiag JSON) in DIR
# The cluster is brought up and taken down here, under flock /tmp/fabdiag-emu-user.lock (taken
# here unless a parent process already holds it). Needs: root, mpirun, python3,
# scripts/emucluster.sh. Traffic stays between the local network namespaces.
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOCK=/tmp/fabdiag-emu-user.lock
BIN=$ROOT/build/fabdiag
MPIGRAPH=""
NODES=6
RATE=200mbit
FAULTS=()
SIZE=4M
WINDOW=4
ITERS=5
REPEAT=3
KEEP=""
EMUCLUSTER=${EMUCLUSTER:-$ROOT/scripts/emucluster.sh}
ARGS=("$@")

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 2; }
while (($#)); do
	case $1 in
	--mpigraph) MPIGRAPH=${2-}; shift 2 ;;
	--bin) BIN=${2-}; shift 2 ;;
	--nodes) NODES=${2-}; shift 2 ;;
	--rate) RATE=${2-}; shift 2 ;;
	--slow-node | --slow-link) FAULTS+=("$1" "${2-}"); shift 2 ;;
	--size) SIZE=${2-}; shift 2 ;;
	--window) WINDOW=${2-}; shift 2 ;;
	--iters) ITERS=${2-}; shift 2 ;;
	--repeat) REPEAT=${2-}; shift 2 ;;
	--keep) KEEP=${2-}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ -n $MPIGRAPH ]] || die "--mpigraph PATH is required: the mpiGraph binary, built outside this repository (git clone https://github.com/LLNL/mpiGraph; mpicc -O2 -o mpiGraph mpiGraph.c)"
[[ -f $MPIGRAPH && -x $MPIGRAPH ]] || die "--mpigraph '$MPIGRAPH': no executable file there"
[[ -x $BIN ]] || die "fabdiag binary '$BIN' not found (build it, or pass --bin)"
if ! [[ $NODES =~ ^[0-9]+$ ]] || ((NODES < 2 || NODES > 32)); then die "--nodes '$NODES': 2..32"; fi
[[ $ITERS =~ ^[1-9][0-9]*$ ]] || die "--iters '$ITERS': a positive integer"
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat '$REPEAT': a positive integer"
[[ $WINDOW =~ ^[1-9][0-9]*$ ]] || die "--window '$WINDOW': a positive integer"
for tool in mpirun python3 numfmt flock; do command -v "$tool" >/dev/null || die "$tool not found"; done
[[ -x $EMUCLUSTER ]] || die "emucluster.sh not found at $EMUCLUSTER (set EMUCLUSTER)"
size_bytes=$(numfmt --from=iec "${SIZE%B}") || die "--size '$SIZE': a size such as 4M"
((size_bytes % WINDOW == 0)) || die "--size $SIZE is not a multiple of --window $WINDOW"
msg_bytes=$((size_bytes / WINDOW))
((${#FAULTS[@]})) || FAULTS=(--slow-node node03=100mbit)

# The emulated cluster is one per machine: hold the shared lock while it is ours. A parent that
# runs us under `flock $LOCK ...` already holds it (taking it again here would wait forever).
lock_held_by_ancestor() {
	[[ -e $LOCK ]] || return 1
	local ino holders pid
	ino=$(stat -c %i "$LOCK")
	holders=$(awk -v ino="$ino" '{ n = split($6, f, ":"); if (f[n] == ino) print $5 }' /proc/locks)
	for pid in $holders; do
		local p=$$
		while ((p > 1)); do
			((p == pid)) && return 0
			p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || break
		done
	done
	return 1
}
if ! lock_held_by_ancestor; then exec flock "$LOCK" bash "$0" "${ARGS[@]}"; fi

tmp=$(mktemp -d)
cleanup() {
	"$EMUCLUSTER" down >/dev/null 2>&1 || echo "$PROG: warning: '$EMUCLUSTER down' failed; run it by hand" >&2
	if [[ -n $KEEP ]]; then mkdir -p "$KEEP" && cp -r "$tmp"/. "$KEEP"/; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

shape=()
if [[ $RATE != none ]]; then
	for ((i = 1; i <= NODES; i++)); do
		name=$(printf 'node%02d' "$i")
		# a --slow-node of its own replaces the common rate on that node
		[[ " ${FAULTS[*]} " == *" $name="* ]] || shape+=(--slow-node "$name=$RATE")
	done
fi
"$EMUCLUSTER" up --nodes "$NODES" "${shape[@]}" "${FAULTS[@]}" >"$tmp/up.log" ||
	{ cat "$tmp/up.log" >&2; die "emucluster.sh up failed"; }
state=${FABDIAG_EMU_STATE:-/tmp/fabdiag-emucluster}
read -r -a MPI_ARGS <<<"$(tr '\n' ' ' <"$state/mpirun-args")"
# Open MPI's rsh launcher warns about setpgid inside the namespaces; the warning is harmless.
mpirun() { command mpirun "$@" 2> >(grep -v 'plm:rsh: Warning: setpgid' >&2); }
now() { date +%s.%N; }

echo "== $NODES nodes, every node at $RATE, ${FAULTS[*]}; $ITERS iterations of $SIZE per pair and direction"
echo "   mpiGraph $msg_bytes $ITERS $WINDOW    vs    fabdiag pairwise --size $SIZE -n $ITERS (-w 1)"
for ((r = 1; r <= REPEAT; r++)); do
	t0=$(now)
	mpirun "${MPI_ARGS[@]}" -np "$NODES" "$MPIGRAPH" "$msg_bytes" "$ITERS" "$WINDOW" >"$tmp/mpigraph.$r.out"
	t1=$(now)
	# exit 1: the matrix names the slow node, as it should
	mpirun "${MPI_ARGS[@]}" -np "$NODES" "$BIN" pairwise --size "$SIZE" -n "$ITERS" --format json -q \
		>"$tmp/fabdiag.$r.json" 2>"$tmp/fabdiag.$r.err" || (($? == 1)) ||
		{ cat "$tmp/fabdiag.$r.err" >&2; die "fabdiag pairwise failed (run $r)"; }
	t2=$(now)
	# fabdiag's own reader of mpiGraph output must accept the run (its Send matrix is checked below)
	"$BIN" import mpigraph "$tmp/mpigraph.$r.out" --format json >"$tmp/import.$r.json" || (($? == 1)) ||
		die "fabdiag import mpigraph refused $tmp/mpigraph.$r.out"
	echo "$r $(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.3f %.3f", b - a, c - b }')" >>"$tmp/walls"
	echo "run $r/$REPEAT: mpiGraph $(cut -d' ' -f2 <<<"$(tail -1 "$tmp/walls")") s, fabdiag $(cut -d' ' -f3 <<<"$(tail -1 "$tmp/walls")") s" >&2
done

python3 - "$tmp" "$REPEAT" <<'PY'
import json, statistics, sys

tmp, repeat = sys.argv[1], int(sys.argv[2])
MIB = 1024.0 * 1024.0

def mpigraph_tables(path):
    """{"Send": {(src, dst): MiB/s}, "Recv": {(src, dst): MiB/s}} from mpiGraph's two tables.
    Send rows are "host:rank to" (row = sender), Recv rows "host:rank from" (row = receiver,
    column = sender), as mpiGraph.c prints them."""
    tables, which, cols = {"Send": {}, "Recv": {}}, None, []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] in ("Send", "Recv"):
            which, cols = f[0], [c.rsplit(":", 1)[0] for c in f[1:] if c]
            continue
        if which and len(f) > 1 and f[0].endswith((" to", " from")):
            row = f[0].rsplit(" ", 1)[0].rsplit(":", 1)[0]
            for col, v in zip(cols, f[1:]):
                if col == row or not v:
                    continue
                key = (row, col) if which == "Send" else (col, row)
                tables[which][key] = float(v)
        elif which and not line.strip():
            which = None
    return tables

fab, mg_recv, mg_send = {}, {}, {}
for r in range(1, repeat + 1):
    d = json.load(open(f"{tmp}/fabdiag.{r}.json"))["data"]
    hosts, m = d["hosts"], d["matrix_bytes_per_s"]
    for i, a in enumerate(hosts):
        for j, b in enumerate(hosts):
            if i != j and m[i][j] is not None:
                fab.setdefault((a, b), []).append(m[i][j] / MIB)  # bytes/s, timed on b
    t = mpigraph_tables(f"{tmp}/mpigraph.{r}.out")
    for k, v in t["Recv"].items(): mg_recv.setdefault(k, []).append(v)
    for k, v in t["Send"].items(): mg_send.setdefault(k, []).append(v)
    imp = json.load(open(f"{tmp}/import.{r}.json"))["data"]
    ih, im = imp["hosts"], imp["matrix_bytes_per_s"]
    for i, a in enumerate(ih):
        for j, b in enumerate(ih):
            if i != j and abs(im[i][j] / MIB - t["Send"][(a, b)]) > 1e-3 * t["Send"][(a, b)] + 1e-3:
                sys.exit(f"fabdiag import mpigraph reads {a}->{b} as {im[i][j] / MIB} MiB/s, the Send table says {t['Send'][(a, b)]}")

med = statistics.median
print(f"\n{'src -> dst':<18} {'fabdiag':>9} {'mpiGraph':>9} {'ratio':>6}   {'mpiGraph':>9} {'ratio':>6}")
print(f"{'(MiB/s, median)':<18} {'(recv)':>9} {'(recv)':>9} {'':>6}   {'(send)':>9}")
ratios, ratios_send, below = [], [], []
for key in sorted(mg_recv):
    if key not in fab:
        continue
    f, g, s = med(fab[key]), med(mg_recv[key]), med(mg_send[key])
    ratio, ratio_send = f / g, f / s
    ratios.append(ratio); ratios_send.append(ratio_send)
    if ratio < 0.95: below.append(f"{key[0]}->{key[1]}")
    print(f"{key[0] + ' -> ' + key[1]:<18} {f:9.2f} {g:9.2f} {ratio:6.3f}   {s:9.2f} {ratio_send:6.3f}")
if not ratios:
    sys.exit("no pair measured by both tools")
print(f"\nfabdiag / mpiGraph (recv), {len(ratios)} ordered pairs: median {med(ratios):.3f}, "
      f"min {min(ratios):.3f}, max {max(ratios):.3f}; below 0.95: {len(below)} {' '.join(below)}")
print(f"fabdiag / mpiGraph (send): median {med(ratios_send):.3f}, min {min(ratios_send):.3f}")
walls = [l.split() for l in open(f"{tmp}/walls")]
mg_wall, fab_wall = med(float(w[1]) for w in walls), med(float(w[2]) for w in walls)
print(f"wall time of the whole matrix (median of {repeat}, mpirun launch included): "
      f"mpiGraph {mg_wall:.1f} s, fabdiag {fab_wall:.1f} s, fabdiag / mpiGraph {fab_wall / mg_wall:.2f}")
PY
