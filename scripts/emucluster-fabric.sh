# emucluster-fabric.sh: the leaf/spine part of scripts/emucluster.sh (sourced by it, not run).
#
# With `up --leaves L` the nodes hang from L leaf bridges fdleaf1..fdleafL instead of the bridge
# fdbr0, which becomes the spine: each leaf has one uplink, a veth pair fdupN (leaf end, enslaved
# to fdleafN) <-> fdspN (spine end, enslaved to fdbr0). Everything stays one L2 segment (no
# routing: a single spine, no ECMP), so mpirun in the root namespace still reaches every node
# through the spine. `--slow-uplink leafN=RATE` puts a tbf on both ends of leaf N's uplink, so
# every cross-leaf flow of leaf N shares RATE while traffic inside the leaf is untouched.
# Nodes are placed in contiguous blocks: node i under leaf ceil(i * L / N).
# The topology is written to STATE/topology ("nodeNN leafN spine" lines, what
# `fabdiag triage --topology` reads); the env file gets EMU_LEAVES and EMU_TOPOLOGY.

readonly LEAF_BRIDGE_PREFIX=fdleaf # leaf N's bridge: fdleafN
readonly UPLINK_LEAF_PREFIX=fdup   # leaf end of leaf N's uplink: fdupN
readonly UPLINK_SPINE_PREFIX=fdsp  # spine end: fdspN
readonly MAX_LEAVES=8

LEAVES=0                 # 0: no fabric, every node on $BRIDGE (the default, as before)
declare -A UPLINK_RATE=() # leaf number -> RATE of --slow-uplink

# fabric_parse LEAVES SPEC... : validates --leaves and the --slow-uplink specs against N nodes.
fabric_parse() {
	local nodes=$1 leaves=$2 spec n rate
	shift 2
	if [[ -n $leaves ]]; then
		[[ $leaves =~ ^[0-9]+$ ]] || usage_error "up: --leaves must be a number"
		LEAVES=$((10#$leaves))
		((LEAVES >= 1 && LEAVES <= MAX_LEAVES)) || usage_error "up: --leaves must be 1..$MAX_LEAVES"
		((LEAVES <= nodes)) || usage_error "up: --leaves $LEAVES is more than --nodes $nodes"
	fi
	for spec in "$@"; do
		((LEAVES > 0)) || usage_error "--slow-uplink needs --leaves"
		[[ $spec =~ ^leaf([0-9]+)=(.+)$ ]] || usage_error "bad uplink fault '$spec' (want leafN=RATE)"
		n=$((10#${BASH_REMATCH[1]}))
		rate=${BASH_REMATCH[2]}
		((n >= 1 && n <= LEAVES)) || usage_error "'$spec': there are leaves leaf1..leaf$LEAVES"
		[[ -z ${UPLINK_RATE[$n]:-} ]] || usage_error "leaf$n has two uplink faults"
		parse_rate "$rate"
		UPLINK_RATE[$n]=$rate
		FAULT_DESC+=("slow-uplink:$spec")
	done
}

# leaf_of_node I N: the leaf number of node I among N nodes (contiguous blocks).
leaf_of_node() { printf '%d' $((($1 * LEAVES + $2 - 1) / $2)); }

# node_bridge I N: the bridge node I's host end is enslaved to.
node_bridge() {
	if ((LEAVES > 0)); then printf '%s%d' "$LEAF_BRIDGE_PREFIX" "$(leaf_of_node "$1" "$2")"; else printf '%s' "$BRIDGE"; fi
}

# fabric_build: the leaf bridges and their uplinks to the spine ($BRIDGE), before the nodes.
fabric_build() {
	local l br up sp
	for ((l = 1; l <= LEAVES; l++)); do
		br=$LEAF_BRIDGE_PREFIX$l up=$UPLINK_LEAF_PREFIX$l sp=$UPLINK_SPINE_PREFIX$l
		ip link add name "$br" type bridge stp_state 0 forward_delay 0
		sysctl -qw "net.ipv6.conf.$br.disable_ipv6=1" >/dev/null || true
		ip link set dev "$br" up
		ip link add name "$up" type veth peer name "$sp"
		sysctl -qw "net.ipv6.conf.$up.disable_ipv6=1" "net.ipv6.conf.$sp.disable_ipv6=1" >/dev/null || true
		ip link set dev "$up" master "$br" up
		ip link set dev "$sp" master "$BRIDGE" up
	done
}

# fabric_faults: tbf on both ends of each slow uplink.
fabric_faults() {
	local l rate burst
	for l in "${!UPLINK_RATE[@]}"; do
		rate=${UPLINK_RATE[$l]}
		parse_rate "$rate"
		burst=$(burst_bytes "$RATE_BPS")
		tc qdisc add dev "$UPLINK_LEAF_PREFIX$l" root handle 1: tbf rate "$rate" burst "$burst" latency 50ms
		tc qdisc add dev "$UPLINK_SPINE_PREFIX$l" root handle 1: tbf rate "$rate" burst "$burst" latency 50ms
	done
}

# fabric_write N: STATE/topology and the env lines (appended to STATE/env).
fabric_write() {
	local n=$1 i
	if ((LEAVES == 0)); then
		printf 'EMU_LEAVES=0\nEMU_TOPOLOGY=\n' >>"$STATE/env"
		return 0
	fi
	{
		printf '# emucluster fabric: host leaf spine (fabdiag triage --topology)\n'
		for ((i = 1; i <= n; i++)); do printf '%s leaf%d spine\n' "$(node_name "$i")" "$(leaf_of_node "$i" "$n")"; done
	} >"$STATE/topology"
	printf 'EMU_LEAVES=%q\nEMU_TOPOLOGY=%q\n' "$LEAVES" "$STATE/topology" >>"$STATE/env"
}

# fabric_teardown: every leaf bridge and uplink veth (deleting one end deletes its peer).
fabric_teardown() {
	local f
	for f in /sys/class/net/"$UPLINK_LEAF_PREFIX"[0-9]* /sys/class/net/"$UPLINK_SPINE_PREFIX"[0-9]* \
		/sys/class/net/"$LEAF_BRIDGE_PREFIX"[0-9]*; do
		ip link del dev "${f##*/}" 2>/dev/null || true
	done
}

# fabric_leftovers: one line per leaf bridge or uplink still present; 1 if any.
fabric_leftovers() {
	local left=0 f
	for f in /sys/class/net/"$UPLINK_LEAF_PREFIX"[0-9]* /sys/class/net/"$UPLINK_SPINE_PREFIX"[0-9]* \
		/sys/class/net/"$LEAF_BRIDGE_PREFIX"[0-9]*; do
		printf 'link %s\n' "${f##*/}"
		left=1
	done
	return "$left"
}

# fabric_status: the leaves, their nodes and uplink shaping (nothing without a fabric).
fabric_status() {
	local n=$1 l i members
	local leaves
	leaves=$(sed -n 's/^EMU_LEAVES=//p' "$STATE/env")
	[[ ${leaves:-0} =~ ^[1-9][0-9]*$ ]] || return 0
	LEAVES=$leaves
	for ((l = 1; l <= LEAVES; l++)); do
		members=""
		for ((i = 1; i <= n; i++)); do
			if (($(leaf_of_node "$i" "$n") == l)); then members+=" $(node_name "$i")"; fi
		done
		printf 'leaf%-3d bridge %s%d (%s), uplink %s%d<->%s%d: %s;%s\n' "$l" "$LEAF_BRIDGE_PREFIX" "$l" \
			"$(link_exists "$LEAF_BRIDGE_PREFIX$l" && echo present || echo MISSING)" \
			"$UPLINK_LEAF_PREFIX" "$l" "$UPLINK_SPINE_PREFIX" "$l" "$(describe_shaping "" "$UPLINK_LEAF_PREFIX$l")" "$members"
	done
}
