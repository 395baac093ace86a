#!/usr/bin/env bash
# emucluster.sh: an emulated GPU-cluster network on one Linux machine, for fabdiag's tests and demos.
#
# Makes N network namespaces (node01..nodeNN) on a private bridge, each with its own hostname (UTS
# namespace) and TMPDIR, injects slow nodes / slow links with tc (tbf, htb+u32), and writes the files
# mpirun needs to start one real rank per namespace through scripts/emucluster-rsh.
# Run with --help for the full story. Measured facts behind the choices: docs/emulation.md.
set -euo pipefail
shopt -s nullglob

PROG=${0##*/}
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
readonly PROG SCRIPT_DIR
readonly RSH_AGENT="$SCRIPT_DIR/emucluster-rsh"

# The test range. 10.213.0.0/24 is checked to be unused (no address, no covering route other than the
# default route) before anything is created; override the first three octets with FABDIAG_EMU_NET.
readonly NET=${FABDIAG_EMU_NET:-10.213.0}
readonly SUBNET="$NET.0/24"
readonly BRIDGE=fdbr0
readonly BRIDGE_ADDR="$NET.254"
readonly NS_IF=eth0                    # interface name inside each node
readonly HOST_IF_PREFIX=fdv            # host end of node NN's veth: fdvNN
readonly MAX_NODES=32
readonly DEFAULT_STATE=/tmp/fabdiag-emucluster
readonly POINTER=/run/fabdiag-emucluster.state   # holds the state dir of the cluster that is up
readonly LOCK=/run/fabdiag-emucluster.lock
readonly MARKER=fabdiag-emucluster     # ifalias of every node's eth0, and marker file in the state dir
readonly HOLDER_TAG=fabdiag-emuholder  # argv[0] of the per-node holder process: fabdiag-emuholder-nodeNN
# shellcheck source=scripts/emucluster-fabric.sh
. "$SCRIPT_DIR/emucluster-fabric.sh"  # --leaves, --slow-uplink: leaf bridges under a spine

usage() {
	cat <<EOF
$PROG: emulate a small cluster network on this machine (network namespaces + a bridge + tc faults)
so that fabdiag can run one real MPI rank per "node" and find injected slow nodes and links.

Usage:
  $PROG up --nodes N [--slow-node NAME=RATE]... [--slow-link A,B=RATE]...
                     [--egress-only-node NAME=RATE]... [--leaves L [--slow-uplink leafN=RATE]...]
                     [--sysfs FIXTURE_DIR] [--state DIR]
  $PROG down   [--state DIR]
  $PROG status [--state DIR]
  $PROG env    [--state DIR]   print the state's env file (EMU_TOPOLOGY: the topology file)
  $PROG --help

What "up" builds (root required; one cluster per machine: the names are global, so "up" first tears
down any previous cluster, and running it twice is safe):
  - network namespaces node01..nodeNN (always two digits, 1 <= N <= $MAX_NODES);
  - a bridge $BRIDGE in the root namespace with address $BRIDGE_ADDR/24 (mpirun runs here);
  - per node a veth pair: host end ${HOST_IF_PREFIX}NN enslaved to $BRIDGE, node end $NS_IF inside nodeNN;
  - addresses: subnet $SUBNET, node NN has $NET.<NN> (node03 = $NET.3), the bridge has $BRIDGE_ADDR.
    No default route and no forwarding: traffic can only go between these namespaces and the bridge.
    The range is checked to be unused first; set FABDIAG_EMU_NET=10.X.Y to pick another 10.X.Y.0/24;
  - per node a holder process (argv[0] "$HOLDER_TAG-nodeNN") in the node's network namespace and its
    own UTS namespace with hostname nodeNN; the rsh agent enters its net+uts+mount namespaces.
    (The mount namespace is the one "ip netns exec" made: /sys/class/net there shows the node's eth0.)

Faults (RATE: an integer with bit, kbit, mbit, gbit or tbit, SI units as tc reads them: 100mbit, 1gbit;
the kernel has no netem, so faults are rates only, no delay or loss):
  --slow-node NAME=RATE         tbf on both ends of the node's veth: all traffic into and out of NAME.
  --slow-link A,B=RATE          htb class + u32 filter on destination address on A's egress (to B) and
                                B's egress (to A); every other flow from A and B is unshaped.
  --egress-only-node NAME=RATE  tbf on the node end only: traffic out of NAME is slow, into it is not.
  --slow-uplink leafN=RATE      (with --leaves) tbf on both ends of leaf N's uplink to the spine: every
                                cross-leaf flow of leaf N shares RATE; traffic inside the leaf is untouched.
  A node may have a node fault and slow links at once (the htb hangs under the tbf).
  At 100mbit a 4 MiB exchange takes ~0.35 s; keep throttled tests at 4 MiB messages or less.

Fabric (default: every node on $BRIDGE, one "leaf"):
  --leaves L           L leaf bridges ${LEAF_BRIDGE_PREFIX}1..${LEAF_BRIDGE_PREFIX}L (1 <= L <= $MAX_LEAVES, L <= N), nodes in
                       contiguous blocks (8 nodes, 2 leaves: node01-04 under leaf1); $BRIDGE is the spine, each
                       leaf has one uplink veth ${UPLINK_LEAF_PREFIX}N (leaf end) <-> ${UPLINK_SPINE_PREFIX}N (spine end). One L2
                       segment, a single spine, no ECMP. Writes STATE/topology ("nodeNN leafN spine").

Other options:
  --sysfs FIXTURE_DIR  copy the fixture tree to STATE/nodeNN/sys for every node (a per-node --sysfs-root;
                       a test may bump counters in it during a run). Ranks see it as \$EMU_NODE_SYSFS.
  --state DIR          state directory (default \$FABDIAG_EMU_STATE, else $DEFAULT_STATE).
  --replace            take down a cluster that is up under another state dir (refused otherwise).
                       Must not exist yet, be empty, or be an earlier emucluster state dir.

Files written to STATE:
  hostfile        "nodeNN slots=1" per node
  env             shell-sourceable: EMU_SUBNET EMU_STATE EMU_NODES EMU_RSH EMU_BRIDGE_ADDR EMU_NET
                  EMU_HOSTFILE EMU_MPIRUN_ARGS EMU_SYSFS (1 if STATE/nodeNN/sys exist) EMU_FAULTS
                  EMU_LEAVES (0 without --leaves) EMU_TOPOLOGY (STATE/topology, empty without --leaves)
  topology        with --leaves: "nodeNN leafN spine" per node (fabdiag triage --topology FILE)
  mpirun-args     one mpirun argument per line (no spaces inside arguments), use as:
                    mpirun \$(cat STATE/mpirun-args) -np N ./program
  nodeNN/tmp      the node's TMPDIR (Open MPI session directories must not be shared between nodes)
  nodeNN/sys      the node's copy of --sysfs, if given
  nodeNN/holder.pid
The agent ($RSH_AGENT) finds the state dir through \$FABDIAG_EMU_STATE, else $POINTER, else the default.

Inside a rank: hostname = nodeNN, TMPDIR = STATE/nodeNN/tmp, EMU_NODE = nodeNN,
EMU_NODE_SYSFS = STATE/nodeNN/sys (only with --sysfs), FABDIAG_EMU_STATE = STATE.

Why the mpirun flags (measured on a 2-core VM, see docs/emulation.md):
  mpi_yield_when_idle 1  busy-polling ranks otherwise starve the veth softirq (~100x slower);
  --bind-to none         each "node" believes it owns the machine, so every rank would bind to core 0;
  *_if_include CIDR      an interface name cannot work: mpirun lives in the root namespace;
  if_base_do_not_resolve 1  otherwise mpirun asks DNS for every nodeNN (queries leave the machine, and
                         one lost reply costs the 5 s resolver timeout: 0.3 s launches became 5.3 s).

"down" removes everything "up" made: processes still inside the nodes (holders, stray orted/ranks),
namespaces, bridge, veths and qdiscs, the state dir. It works after a crash with partial state and is a
no-op when nothing is up. "status" prints nodes, addresses, qdiscs and holders; exit 0 if up, 1 if not.

Examples:
  sudo $PROG up --nodes 8 --slow-node node03=100mbit --slow-link node05,node06=200mbit
  mpirun \$(cat /tmp/fabdiag-emucluster/mpirun-args) -np 8 hostname
  sudo $PROG status; sudo $PROG down
EOF
}

die() {
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}
usage_error() {
	printf '%s: %s (see --help)\n' "$PROG" "$*" >&2
	exit 2
}
info() { printf '%s: %s\n' "$PROG" "$*"; }
# parse_state_option VERB ARGS...: the one option of down, status and env, --state DIR, into the
# caller's state_opt; --help prints the usage; anything else is a usage error naming VERB.
parse_state_option() {
	local verb=$1 arg
	shift
	while (($#)); do
		arg=$1
		case $arg in
		--state) state_opt=${2:?--state needs DIR}; shift 2 ;;
		--state=*) state_opt=${arg#*=}; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage_error "$verb: unknown argument '$arg'" ;;
		esac
	done
}
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }

node_name() { printf 'node%02d' "$1"; }
host_if() { printf '%s%02d' "$HOST_IF_PREFIX" "$1"; }
node_addr() { printf '%s.%d' "$NET" "$1"; }

# node_index NAME -> prints the number of nodeNN, or fails
node_index() {
	[[ $1 =~ ^node([0-9]{2})$ ]] || return 1
	printf '%d' "$((10#${BASH_REMATCH[1]}))"
}

ns_exists() { [[ -e /run/netns/$1 ]]; }
link_exists() { ip link show dev "$1" >/dev/null 2>&1; }

# Is /proc/PID the holder of NODE?
is_holder() {
	local pid=$1 node=$2 argv0=""
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] || return 1
	IFS= read -r -d '' argv0 2>/dev/null <"/proc/$pid/cmdline" || true
	[[ $argv0 == "$HOLDER_TAG-$node" ]]
}

# Resolve the state dir: --state, else $FABDIAG_EMU_STATE, else the default.
STATE=""
resolve_state() {
	STATE=${1:-${FABDIAG_EMU_STATE:-$DEFAULT_STATE}}
	[[ $STATE == /* ]] || STATE="$PWD/$STATE"
	# mpirun-args is split on whitespace by $(cat ...): keep the path free of spaces and glob characters.
	[[ $STATE =~ ^/[A-Za-z0-9._/+-]+$ ]] || die "state dir '$STATE': use only letters, digits and ._/+-"
	STATE=${STATE%/}
	case $STATE in
	/ | /tmp | /run | /var | /var/tmp | /home | /root | /usr | /etc) die "refusing state dir '$STATE'" ;;
	esac
}

state_is_ours() { [[ -f $1/.$MARKER ]]; }

acquire_lock() {
	exec 9>"$LOCK"
	flock -w 60 9 || die "another $PROG up/down holds $LOCK"
}

need_root() {
	[[ $(id -u) -eq 0 ]] || die "must run as root (namespaces, bridge, tc)"
	ip netns list >/dev/null 2>&1 || die "'ip netns' is unavailable"
}

# ---------------------------------------------------------------------------------------------------
# Rates

RATE_BPS=0 # bits/s of the last parse_rate
parse_rate() {
	local r=$1 num unit mult
	[[ $r =~ ^([0-9]+)(bit|kbit|mbit|gbit|tbit)$ ]] || usage_error "bad RATE '$r' (use e.g. 100mbit, 1gbit)"
	num=${BASH_REMATCH[1]}
	unit=${BASH_REMATCH[2]}
	case $unit in
	bit) mult=1 ;; kbit) mult=1000 ;; mbit) mult=1000000 ;; gbit) mult=1000000000 ;; tbit) mult=1000000000000 ;;
	esac
	RATE_BPS=$((num * mult))
	((RATE_BPS >= 8000)) || usage_error "RATE '$r' is too low (at least 8kbit)"
}

# tbf/htb bucket: 10 ms of traffic, at least 16 KiB (must exceed MTU and rate/HZ).
burst_bytes() {
	local b=$(($1 / 8 / 100))
	((b >= 16384)) || b=16384
	printf '%d' "$b"
}

# shellcheck source=scripts/emucluster-teardown.sh
. "$SCRIPT_DIR/emucluster-teardown.sh"  # kill_pids, teardown, leftovers

# ---------------------------------------------------------------------------------------------------
# up

# The test range must be free: no address in it and no route covering it, other than the default route.
check_subnet_free() {
	local routes addrs
	routes=$(ip -4 route show table all match "$SUBNET" 2>/dev/null | grep -v '^default ' || true)
	addrs=$(ip -4 -o addr show 2>/dev/null | awk -v p="$NET." 'index($4, p) == 1' || true)
	[[ -z $routes ]] || die "range $SUBNET is already routed here: $routes (set FABDIAG_EMU_NET=10.X.Y)"
	[[ -z $addrs ]] || die "range $SUBNET is already in use here: $addrs (set FABDIAG_EMU_NET=10.X.Y)"
}

start_holder() {
	local node=$1 pid i
	# ip netns exec and unshare both exec (no fork); bash sets the hostname, turns IPv6 off in the node
	# (no link-local chatter) and execs sleep under our tag. The mount namespace is ip netns exec's,
	# where /sys is remounted for the node's network namespace.
	# shellcheck disable=SC2016 # $1 and $2 are expanded by the inner bash
	setsid ip netns exec "$node" unshare --uts bash -c \
		'hostname "$1" || exit 1
		 sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
		 exec -a "$2" sleep infinity' \
		holder "$node" "$HOLDER_TAG-$node" </dev/null >/dev/null 2>&1 9>&- &
	for ((i = 0; i < 100; i++)); do
		for pid in $(ip netns pids "$node" 2>/dev/null); do
			if is_holder "$pid" "$node"; then
				printf '%s\n' "$pid" >"$STATE/$node/holder.pid"
				return 0
			fi
		done
		sleep 0.05
	done
	die "holder process for $node did not start"
}

# Add an htb "slow to DST" class on SRC's egress (created on first use, under the tbf if there is one).
# Class 2:1NN (hex) carries traffic to node NN; unclassified traffic takes htb's direct queue, unshaped.
add_slow_route() {
	local src=$1 dst=$2 rate=$3 burst=$4 srcn classid
	local -a parent=(root)
	srcn=$(node_name "$src")
	if ! tc -n "$srcn" qdisc show dev "$NS_IF" | grep -q '^qdisc htb 2:'; then
		if tc -n "$srcn" qdisc show dev "$NS_IF" | grep -q '^qdisc tbf 1:'; then parent=(parent 1:1); fi
		tc -n "$srcn" qdisc add dev "$NS_IF" "${parent[@]}" handle 2: htb default 0
	fi
	classid=$(printf '2:%x' $((0x100 + dst)))
	# quantum: only matters between siblings; set it to keep htb from warning at high rates.
	tc -n "$srcn" class add dev "$NS_IF" parent 2: classid "$classid" htb rate "$rate" ceil "$rate" \
		burst "$burst" cburst "$burst" quantum 60000
	tc -n "$srcn" filter add dev "$NS_IF" parent 2: protocol ip prio 1 u32 \
		match ip dst "$(node_addr "$dst")/32" flowid "$classid"
}

write_files() {
	local n=$1 i
	{
		for ((i = 1; i <= n; i++)); do printf '%s slots=1\n' "$(node_name "$i")"; done
	} >"$STATE/hostfile"
	{
		printf '# emucluster state; source this file\n'
		printf 'EMU_SUBNET=%q\n' "$SUBNET"
		printf 'EMU_NET=%q\n' "$NET"
		printf 'EMU_BRIDGE=%q\n' "$BRIDGE"
		printf 'EMU_BRIDGE_ADDR=%q\n' "$BRIDGE_ADDR"
		printf 'EMU_STATE=%q\n' "$STATE"
		printf 'EMU_NODES=%q\n' "$n"
		printf 'EMU_RSH=%q\n' "$RSH_AGENT"
		printf 'EMU_HOSTFILE=%q\n' "$STATE/hostfile"
		printf 'EMU_MPIRUN_ARGS=%q\n' "$STATE/mpirun-args"
		printf 'EMU_SYSFS=%q\n' "$SYSFS_SET"
		printf 'EMU_SYSFS_SOURCE=%q\n' "$SYSFS_SOURCE"
		printf 'EMU_FAULTS=%q\n' "${FAULT_DESC[*]}"
	} >"$STATE/env"
	printf '%s\n' \
		--allow-run-as-root \
		--hostfile "$STATE/hostfile" \
		--mca plm_rsh_agent "$RSH_AGENT" \
		--mca plm_rsh_no_tree_spawn 1 \
		--mca pml ob1 \
		--mca btl tcp,self \
		--mca btl_tcp_if_include "$SUBNET" \
		--mca oob_tcp_if_include "$SUBNET" \
		--mca mpi_yield_when_idle 1 \
		--mca if_base_do_not_resolve 1 \
		--bind-to none \
		>"$STATE/mpirun-args"
}

SYSFS_SET=0
SYSFS_SOURCE=""
FAULT_DESC=()

up_failed() {
	trap - ERR INT TERM
	warn "up failed (line $2: $3, exit $1); tearing down"
	teardown 1
	exit 1
}

cmd_up() {
	local nodes="" state_opt="" sysfs="" arg name spec rate replace=0 leaves=""
	local -a slow_nodes=() slow_links=() egress_nodes=() slow_uplinks=()
	while (($#)); do
		arg=$1
		case $arg in
		--nodes) nodes=${2:?--nodes needs N}; shift 2 ;;
		--nodes=*) nodes=${arg#*=}; shift ;;
		--slow-node) slow_nodes+=("${2:?--slow-node needs NAME=RATE}"); shift 2 ;;
		--slow-node=*) slow_nodes+=("${arg#*=}"); shift ;;
		--slow-link) slow_links+=("${2:?--slow-link needs A,B=RATE}"); shift 2 ;;
		--slow-link=*) slow_links+=("${arg#*=}"); shift ;;
		--egress-only-node) egress_nodes+=("${2:?--egress-only-node needs NAME=RATE}"); shift 2 ;;
		--egress-only-node=*) egress_nodes+=("${arg#*=}"); shift ;;
		--leaves) leaves=${2:?--leaves needs L}; shift 2 ;;
		--leaves=*) leaves=${arg#*=}; shift ;;
		--slow-uplink) slow_uplinks+=("${2:?--slow-uplink needs leafN=RATE}"); shift 2 ;;
		--slow-uplink=*) slow_uplinks+=("${arg#*=}"); shift ;;
		--sysfs) sysfs=${2:?--sysfs needs FIXTURE_DIR}; shift 2 ;;
		--sysfs=*) sysfs=${arg#*=}; shift ;;
		--state) state_opt=${2:?--state needs DIR}; shift 2 ;;
		--state=*) state_opt=${arg#*=}; shift ;;
		--replace) replace=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage_error "up: unknown argument '$arg'" ;;
		esac
	done
	[[ $nodes =~ ^[0-9]+$ ]] || usage_error "up: --nodes N is required (1..$MAX_NODES)"
	nodes=$((10#$nodes))
	((nodes >= 1 && nodes <= MAX_NODES)) || usage_error "up: --nodes must be 1..$MAX_NODES"
	if ! [[ $NET =~ ^10\.([0-9]{1,3})\.([0-9]{1,3})$ ]] || ((BASH_REMATCH[1] > 255 || BASH_REMATCH[2] > 255)); then
		usage_error "FABDIAG_EMU_NET must be 10.X.Y (got '$NET')"
	fi
	if [[ -n $sysfs ]]; then
		[[ -d $sysfs ]] || usage_error "--sysfs '$sysfs' is not a directory"
		sysfs=$(cd -- "$sysfs" && pwd -P)
	fi

	# Validate faults before touching anything. node_rate[i]: tbf on the node end; into_rate[i]: host end.
	local -A node_rate=() into_rate=() link_seen=()
	local -a link_list=() # "a b rate"
	local i a b
	FAULT_DESC=()
	for spec in "${slow_nodes[@]}" "${egress_nodes[@]}"; do
		[[ $spec == *=* ]] || usage_error "bad node fault '$spec' (want NAME=RATE)"
		name=${spec%%=*}
		rate=${spec#*=}
		i=$(node_index "$name") || usage_error "bad node name '$name' (want nodeNN)"
		((i >= 1 && i <= nodes)) || usage_error "$name is not one of node01..$(node_name "$nodes")"
		parse_rate "$rate"
		[[ -z ${node_rate[$i]:-} ]] || usage_error "$name has two node faults"
		node_rate[$i]=$rate
	done
	for spec in "${slow_nodes[@]}"; do
		i=$(node_index "${spec%%=*}")
		into_rate[$i]=${spec#*=}
		FAULT_DESC+=("slow-node:$spec")
	done
	for spec in "${egress_nodes[@]}"; do FAULT_DESC+=("egress-only-node:$spec"); done
	for spec in "${slow_links[@]}"; do
		[[ $spec =~ ^(node[0-9]{2}),(node[0-9]{2})=(.+)$ ]] || usage_error "bad link fault '$spec' (want nodeAA,nodeBB=RATE)"
		a=$(node_index "${BASH_REMATCH[1]}")
		b=$(node_index "${BASH_REMATCH[2]}")
		rate=${BASH_REMATCH[3]}
		((a >= 1 && a <= nodes && b >= 1 && b <= nodes)) || usage_error "link '$spec' names a node outside node01..$(node_name "$nodes")"
		((a != b)) || usage_error "link '$spec' joins a node to itself"
		parse_rate "$rate"
		if ((a > b)); then local t=$a; a=$b; b=$t; fi
		[[ -z ${link_seen[$a,$b]:-} ]] || usage_error "link '$spec' given twice"
		link_seen[$a,$b]=1
		link_list+=("$a $b $rate")
		FAULT_DESC+=("slow-link:$spec")
	done
	fabric_parse "$nodes" "$leaves" "${slow_uplinks[@]}"

	need_root
	resolve_state "$state_opt"
	acquire_lock
	# Another cluster (another state dir) may belong to someone else: do not take it down unasked.
	local other
	other=$(cat "$POINTER" 2>/dev/null || true)
	if [[ -n $other && $other != "$STATE" && -f $other/env && $replace -eq 0 ]]; then
		die "a cluster is already up with state $other (someone else's?): run 'emucluster.sh down --state $other' first, or pass --replace"
	fi
	teardown 1
	if [[ -e $STATE ]]; then
		[[ -d $STATE ]] || die "state path '$STATE' exists and is not a directory"
		if ! state_is_ours "$STATE" && [[ -n $(ls -A -- "$STATE") ]]; then
			die "state dir '$STATE' is not empty and is not an emucluster state dir"
		fi
	fi
	check_subnet_free
	for ((i = 1; i <= nodes; i++)); do
		name=$(node_name "$i")
		! ns_exists "$name" || die "netns $name exists and is not ours; remove it first: ip netns del $name"
	done

	# From here on, any failure tears down what was built.
	set -E
	trap 'up_failed $? "$LINENO" "$BASH_COMMAND"' ERR
	trap 'trap - ERR INT TERM; warn "interrupted; tearing down"; teardown 1; exit 130' INT TERM

	mkdir -p -- "$STATE"
	: >"$STATE/.$MARKER"
	: >"$STATE/created"
	printf '%s\n' "$STATE" >"$POINTER"

	ip link add name "$BRIDGE" type bridge stp_state 0 forward_delay 0
	sysctl -qw "net.ipv6.conf.$BRIDGE.disable_ipv6=1" >/dev/null || true
	ip addr add "$BRIDGE_ADDR/24" dev "$BRIDGE"
	ip link set dev "$BRIDGE" up
	fabric_build

	local hif
	for ((i = 1; i <= nodes; i++)); do
		name=$(node_name "$i")
		hif=$(host_if "$i")
		mkdir -p -- "$STATE/$name/tmp"
		chmod 1777 "$STATE/$name/tmp"
		printf '%s\n' "$name" >>"$STATE/created"
		ip netns add "$name"
		ip link add name "$hif" type veth peer name "$NS_IF" netns "$name"
		sysctl -qw "net.ipv6.conf.$hif.disable_ipv6=1" >/dev/null || true
		ip link set dev "$hif" master "$(node_bridge "$i" "$nodes")" up
		ip -n "$name" link set dev "$NS_IF" alias "$MARKER"
		ip -n "$name" addr add "$(node_addr "$i")/24" dev "$NS_IF"
		ip -n "$name" link set dev "$NS_IF" up
		ip -n "$name" link set dev lo up
		start_holder "$name"
		if [[ -n $sysfs ]]; then
			mkdir -p -- "$STATE/$name/sys"
			cp -a -- "$sysfs/." "$STATE/$name/sys/"
		fi
	done
	if [[ -n $sysfs ]]; then
		SYSFS_SET=1
		SYSFS_SOURCE=$sysfs
	fi

	# Faults.
	local burst
	for i in "${!node_rate[@]}"; do
		name=$(node_name "$i")
		rate=${node_rate[$i]}
		parse_rate "$rate"
		burst=$(burst_bytes "$RATE_BPS")
		tc -n "$name" qdisc add dev "$NS_IF" root handle 1: tbf rate "$rate" burst "$burst" latency 50ms
	done
	for i in "${!into_rate[@]}"; do
		rate=${into_rate[$i]}
		parse_rate "$rate"
		burst=$(burst_bytes "$RATE_BPS")
		tc qdisc add dev "$(host_if "$i")" root handle 1: tbf rate "$rate" burst "$burst" latency 50ms
	done
	local l
	for l in "${link_list[@]}"; do
		read -r a b rate <<<"$l"
		parse_rate "$rate"
		burst=$(burst_bytes "$RATE_BPS")
		add_slow_route "$a" "$b" "$rate" "$burst"
		add_slow_route "$b" "$a" "$rate" "$burst"
	done
	fabric_faults

	write_files "$nodes"
	fabric_write "$nodes"
	trap - ERR INT TERM
	set +E

	info "up: $nodes node(s) node01..$(node_name "$nodes") on $SUBNET (node NN = $NET.NN, bridge $BRIDGE = $BRIDGE_ADDR)"
	((LEAVES == 0)) || info "fabric: $LEAVES leaves under the spine $BRIDGE; topology in $STATE/topology"
	for l in "${FAULT_DESC[@]}"; do info "fault: $l"; done
	if ((SYSFS_SET)); then
		info "sysfs: $sysfs copied to $STATE/nodeNN/sys (node01..$(node_name "$nodes"))"
	fi
	info "state: $STATE (env, hostfile, mpirun-args)"
	info "try:   mpirun \$(cat $STATE/mpirun-args) -np $nodes hostname"
}

# ---------------------------------------------------------------------------------------------------
# down, status

cmd_down() {
	local state_opt="" rest
	parse_state_option down "$@"
	need_root
	resolve_state "$state_opt"
	acquire_lock
	teardown 0
	if ! rest=$(leftovers); then
		warn "still present after down (not made by emucluster, or in use):"
		printf '  %s\n' "$rest" >&2
		exit 1
	fi
}

# shellcheck source=scripts/emucluster-status.sh
. "$SCRIPT_DIR/emucluster-status.sh"  # cmd_status, cmd_env, describe_shaping

main() {
	local cmd=""
	(($#)) || {
		usage >&2
		exit 2
	}
	cmd=$1
	shift
	case $cmd in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	status) cmd_status "$@" ;;
	env) cmd_env "$@" ;;
	-h | --help | help) usage ;;
	*) usage_error "unknown command '$cmd'" ;;
	esac
}

main "$@"
