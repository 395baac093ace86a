#!/usr/bin/env bash
# emucluster_smoke.sh: end-to-end check of scripts/emucluster.sh and scripts/emucluster-rsh.
#
# Brings up 4 nodes with node03 throttled, checks namespaces, hostnames and qdiscs, runs
# "mpirun ... hostname" across the nodes, checks "status", then "down" and that nothing is left.
# Exit: 0 pass, 1 fail (message on stderr), 77 skipped (prints "SKIPPED: <reason>").
# Needs root, "ip netns" and Open MPI's mpirun. Set FABDIAG_EMU_TEST_FORCE=1 to run even when another
# emulated cluster is up (the test tears it down: node names and the bridge are global).
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
EMU="$ROOT/scripts/emucluster.sh"
NODES=4
SLOW=node03

skip() {
	printf 'SKIPPED: %s\n' "$*"
	exit 77
}
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}
step() { printf -- '--- %s\n' "$*"; }

[[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces, bridge, tc)"
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then skip "'ip netns' is unavailable"; fi
command -v tc >/dev/null || skip "tc (iproute2) is not installed"
if ! command -v nsenter >/dev/null || ! command -v unshare >/dev/null; then skip "nsenter/unshare (util-linux) missing"; fi
command -v mpirun >/dev/null || skip "mpirun (Open MPI) is not installed"
if [[ ${FABDIAG_EMU_TEST_FORCE:-0} != 1 ]] && { ip link show dev fdbr0 >/dev/null 2>&1 || [[ -e /run/fabdiag-emucluster.state ]]; }; then
	skip "an emulated cluster is already up (run '$EMU down' or set FABDIAG_EMU_TEST_FORCE=1)"
fi

STATE=$(mktemp -d /tmp/fabdiag-emu-smoke.XXXXXX)
export FABDIAG_EMU_STATE=$STATE
TORN_DOWN=0
cleanup() {
	local rc=$?
	if ((!TORN_DOWN)); then
		"$EMU" down --state "$STATE" >/dev/null 2>&1 || printf 'warning: cleanup "down" failed\n' >&2
	fi
	rm -rf -- "$STATE"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "up --nodes $NODES --slow-node $SLOW=100mbit"
"$EMU" up --nodes "$NODES" --slow-node "$SLOW=100mbit" --state "$STATE" || fail "emucluster.sh up failed"
for f in hostfile env mpirun-args; do [[ -s $STATE/$f ]] || fail "state file $STATE/$f missing or empty"; done
# shellcheck source=/dev/null
source "$STATE/env"
[[ $EMU_NODES == "$NODES" ]] || fail "env says EMU_NODES=$EMU_NODES, want $NODES"
[[ $(wc -l <"$STATE/hostfile") -eq $NODES ]] || fail "hostfile does not have $NODES lines"

step "namespaces, addresses, hostnames"
expected=""
for ((i = 1; i <= NODES; i++)); do
	node=$(printf 'node%02d' "$i")
	expected+="$node "
	[[ -e /run/netns/$node ]] || fail "netns $node missing"
	ip -n "$node" -4 -o addr show dev eth0 | grep -q " ${EMU_NET}.$i/24 " || fail "$node has no address ${EMU_NET}.$i/24"
	pid=$(<"$STATE/$node/holder.pid")
	kill -0 "$pid" 2>/dev/null || fail "holder of $node (pid $pid) is not running"
	host=$(nsenter --uts="/proc/$pid/ns/uts" hostname)
	[[ $host == "$node" ]] || fail "hostname in $node's UTS namespace is '$host'"
	host=$("$EMU_RSH" "$node" hostname) || fail "rsh agent could not run a command in $node"
	[[ $host == "$node" ]] || fail "rsh agent in $node reports hostname '$host'"
done
ip link show dev fdbr0 >/dev/null 2>&1 || fail "bridge fdbr0 missing"

step "qdiscs: tbf on both ends of $SLOW only"
slow_i=$((10#${SLOW#node}))
tc -n "$SLOW" qdisc show dev eth0 | grep -q '^qdisc tbf .*rate 100Mbit' || fail "no tbf on $SLOW's eth0"
tc qdisc show dev "$(printf 'fdv%02d' "$slow_i")" | grep -q '^qdisc tbf .*rate 100Mbit' || fail "no tbf on the host end of $SLOW"
if tc -n node01 qdisc show dev eth0 | grep -q 'tbf\|htb'; then fail "node01 is shaped but should not be"; fi

step "mpirun -np $NODES hostname"
mapfile -t args <"$STATE/mpirun-args"
out=$(timeout 120 mpirun "${args[@]}" -np "$NODES" hostname 2>"$STATE/mpirun.err") || {
	cat "$STATE/mpirun.err" >&2
	fail "mpirun failed"
}
got=$(printf '%s\n' "$out" | sort | tr '\n' ' ')
[[ $got == "$expected" ]] || fail "mpirun hostname printed '$got', want '$expected'"
# Open MPI 4.1 prints a harmless "plm:rsh: Warning: setpgid(...) failed" race; anything else is news.
if grep -v 'plm:rsh: Warning: setpgid' "$STATE/mpirun.err" | grep -q .; then
	cat "$STATE/mpirun.err" >&2
	fail "mpirun wrote unexpected messages to stderr"
fi

step "status"
status_out=$("$EMU" status --state "$STATE") || {
	printf '%s\n' "$status_out" >&2
	fail "status exited non-zero while up"
}
printf '%s\n' "$status_out"
grep -q "^$SLOW .*tbf 100Mbit" <<<"$status_out" || fail "status does not show the tbf on $SLOW"
[[ $(grep -c 'alive' <<<"$status_out") -eq $NODES ]] || fail "status does not show $NODES live holders"

step "down"
mapfile -t holders < <(cat "$STATE"/node*/holder.pid)
"$EMU" down --state "$STATE" || fail "down failed"
TORN_DOWN=1
left=$(ip netns list | grep -E '^node[0-9]{2}( |$)' || true)
[[ -z $left ]] || fail "namespaces left after down: $left"
if ip link show dev fdbr0 >/dev/null 2>&1; then fail "bridge fdbr0 left after down"; fi
for pid in "${holders[@]}"; do
	if kill -0 "$pid" 2>/dev/null; then fail "holder pid $pid still running after down"; fi
done
for f in /proc/[0-9]*/cmdline; do
	argv0=""
	IFS= read -r -d '' argv0 2>/dev/null <"$f" || true
	[[ $argv0 != fabdiag-emuholder-* ]] || fail "holder process ${f#/proc/} ($argv0) still running"
done
[[ ! -e $STATE/env ]] || fail "state dir $STATE not removed"
if "$EMU" status --state "$STATE" >/dev/null 2>&1; then fail "status exits 0 after down"; fi

printf 'PASS: emucluster smoke (%d nodes, %s throttled)\n' "$NODES" "$SLOW"
