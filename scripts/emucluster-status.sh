# emucluster-status.sh: `status` and `env` of scripts/emucluster.sh (sourced by it, not run).
# describe_shaping [NETNS] DEV: "tbf 100Mbit", "htb to node06 200Mbit", ... or "none".
describe_shaping() {
	local -a nsopt=()
	[[ -n $1 ]] && nsopt=(-n "$1")
	{
		tc "${nsopt[@]}" qdisc show dev "$2" 2>/dev/null || true
		tc "${nsopt[@]}" class show dev "$2" 2>/dev/null || true
	} | awk '
		function rate_of(   i) { for (i = 1; i < NF; i++) if ($i == "rate") return $(i + 1); return "?" }
		function hex(h,   i, v) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
		$1 == "qdisc" && $2 == "tbf" { out = out sep "tbf " rate_of(); sep = ", " }
		$1 == "class" && $2 == "htb" {
			split($3, c, ":"); node = hex(c[2]) - 256
			out = out sep sprintf("htb to node%02d %s", node, rate_of()); sep = ", "
		}
		END { print (out == "" ? "none" : out) }'
}

cmd_status() {
	local state_opt="" n=0 i name pid up=1 addr q hq holder host
	parse_state_option status "$@"
	need_root
	if [[ -z $state_opt && -z ${FABDIAG_EMU_STATE:-} && -r $POINTER ]]; then state_opt=$(<"$POINTER"); fi
	resolve_state "$state_opt"
	if [[ ! -r $STATE/env ]]; then
		info "not up (no $STATE/env)"
		if leftovers >/dev/null; then :; else warn "partial cluster present; run: $PROG down"; fi
		return 1
	fi
	n=$(sed -n 's/^EMU_NODES=//p' "$STATE/env")
	printf 'state   %s\nsubnet  %s  bridge %s %s (%s)\nfaults  %s\n' "$STATE" "$SUBNET" "$BRIDGE" "$BRIDGE_ADDR" \
		"$(link_exists "$BRIDGE" && echo present || echo MISSING)" \
		"$(sed -n 's/^EMU_FAULTS=//p' "$STATE/env" | tr -d "'\\\\")"
	link_exists "$BRIDGE" || up=0
	printf '%-7s %-14s %-28s %s\n' NODE ADDRESS HOLDER 'SHAPING (out: node end egress; in: host end, into the node)'
	for ((i = 1; i <= n; i++)); do
		name=$(node_name "$i")
		addr=- holder=MISSING q="" hq=""
		if ns_exists "$name"; then
			addr=$(ip -n "$name" -4 -o addr show dev "$NS_IF" 2>/dev/null | awk '{print $4}' || true)
			q=$(describe_shaping "$name" "$NS_IF")
		else
			addr="NO NETNS"
			up=0
		fi
		hq=$(describe_shaping "" "$(host_if "$i")")
		pid=$(cat "$STATE/$name/holder.pid" 2>/dev/null || true)
		if is_holder "$pid" "$name"; then
			host=$(nsenter --uts="/proc/$pid/ns/uts" hostname 2>/dev/null || echo '?')
			holder="pid $pid alive ($host)"
		else
			holder="DEAD${pid:+ (pid $pid)}"
			up=0
		fi
		printf '%-7s %-14s %-28s out: %s; in: %s\n' "$name" "${addr:-none}" "$holder" "${q:-none}" "${hq:-none}"
	done
	fabric_status "$n"
	if ((up)); then
		info "up ($n nodes)"
		return 0
	fi
	info "DEGRADED: something is missing; run '$PROG up' again or '$PROG down'"
	return 1
}

# env: the env file of the cluster that is up (its path: --state, $FABDIAG_EMU_STATE, else the pointer).
cmd_env() {
	local state_opt=""
	parse_state_option env "$@"
	if [[ -z $state_opt && -z ${FABDIAG_EMU_STATE:-} && -r $POINTER ]]; then state_opt=$(<"$POINTER"); fi
	resolve_state "$state_opt"
	[[ -r $STATE/env ]] || die "not up (no $STATE/env)"
	sed -n 's/^\(EMU_[A-Z_]*=\)/export \1/p' "$STATE/env"
}
