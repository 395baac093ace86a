# emucluster-teardown.sh: the teardown of scripts/emucluster.sh (sourced by it, not run): finding
# what an earlier cluster left (namespaces by their marker, holders by argv[0], state dirs by their
# marker file) and removing exactly that.
# ---------------------------------------------------------------------------------------------------
# Teardown (used by down, by up before building, and by up when it fails)

# Kill PIDs (TERM, then KILL after 3 s). Only PIDs we identified as ours are ever passed in.
kill_pids() {
	local pid i alive
	(($#)) || return 0
	kill -TERM "$@" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		alive=0
		for pid in "$@"; do
			if kill -0 "$pid" 2>/dev/null; then alive=1; fi
		done
		((alive)) || return 0
		sleep 0.1
	done
	kill -KILL "$@" 2>/dev/null || true
	sleep 0.1
}

# Our namespaces: those listed in a state dir, plus any nodeNN whose eth0 carries our ifalias.
our_namespaces() {
	local f ns alias
	declare -A seen=()
	for f in /run/netns/node[0-9][0-9]; do
		ns=${f##*/}
		alias=$(ip -n "$ns" -o link show dev "$NS_IF" 2>/dev/null | sed -n 's/.* alias \([^ ]*\).*/\1/p' || true)
		if [[ $alias == "$MARKER" ]]; then seen[$ns]=1; fi
	done
	for f in "$@"; do
		[[ -f $f/created ]] || continue
		while read -r ns; do
			if [[ $ns =~ ^node[0-9]{2}$ ]] && ns_exists "$ns"; then seen[$ns]=1; fi
		done <"$f/created"
	done
	for ns in "${!seen[@]}"; do printf '%s\n' "$ns"; done | sort
}

# All holder processes, found by argv[0] (survives a lost state dir and a deleted netns name).
holder_pids() {
	local d pid argv0
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		argv0=""
		IFS= read -r -d '' argv0 2>/dev/null <"$d/cmdline" || true
		if [[ $argv0 =~ ^$HOLDER_TAG-node[0-9]{2}$ ]]; then printf '%s\n' "$pid"; fi
	done
}

teardown() {
	local quiet=${1:-0} ns f pointed="" n_ns=0
	local -a pids=() dirs=() nss=()
	[[ -n $STATE ]] && dirs+=("$STATE")
	if [[ -r $POINTER ]]; then
		pointed=$(<"$POINTER")
		[[ -n $pointed && $pointed != "$STATE" ]] && dirs+=("$pointed")
	fi

	mapfile -t nss < <(our_namespaces "${dirs[@]}")
	# Processes inside our nodes: holders, and orted/ranks left by a crashed mpirun.
	for ns in "${nss[@]}"; do
		mapfile -t -O "${#pids[@]}" pids < <(ip netns pids "$ns" 2>/dev/null || true)
	done
	mapfile -t -O "${#pids[@]}" pids < <(holder_pids)
	if ((${#pids[@]})); then
		mapfile -t pids < <(printf '%s\n' "${pids[@]}" | sort -un)
		kill_pids "${pids[@]}"
	fi
	for ns in "${nss[@]}"; do
		ip netns del "$ns" 2>/dev/null || warn "could not delete netns $ns"
		n_ns=$((n_ns + 1))
	done
	# The veths die with their namespace (and their qdiscs with them); remove any orphan host ends.
	for f in /sys/class/net/"$HOST_IF_PREFIX"[0-9][0-9]; do
		ip link del dev "${f##*/}" 2>/dev/null || true
	done
	fabric_teardown
	if link_exists "$BRIDGE"; then
		ip link del dev "$BRIDGE" || warn "could not delete bridge $BRIDGE"
	fi
	# Only directories carrying our marker are removed; anything else is left alone.
	for f in "${dirs[@]}"; do
		if [[ -d $f ]] && state_is_ours "$f"; then rm -rf -- "$f"; fi
	done
	rm -f -- "$POINTER"
	if ((!quiet && n_ns == 0 && ${#pids[@]} == 0)) && [[ -z $pointed ]]; then
		info "down: nothing was up"
	elif ((!quiet)); then
		info "down: removed $n_ns namespace(s), ${#pids[@]} process(es), bridge $BRIDGE, state ${dirs[*]:-none}"
	fi
}

# What is left of a cluster? Prints one line per leftover; returns 0 if nothing is left.
leftovers() {
	local left=0 f
	for f in /run/netns/node[0-9][0-9]; do
		printf 'netns %s\n' "${f##*/}"
		left=1
	done
	if link_exists "$BRIDGE"; then
		printf 'bridge %s\n' "$BRIDGE"
		left=1
	fi
	for f in /sys/class/net/"$HOST_IF_PREFIX"[0-9][0-9]; do
		printf 'link %s\n' "${f##*/}"
		left=1
	done
	while read -r f; do
		[[ -n $f ]] || continue
		printf 'holder pid %s\n' "$f"
		left=1
	done < <(holder_pids)
	fabric_leftovers || left=1
	return "$left"
}
