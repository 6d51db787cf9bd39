#!/usr/bin/env bash
# --inner on the kernel's own tunnels: each inner flow reaches the
# receiving stack on the CPU that `cpusteer classify --inner all` predicts
# from a capture of the very frames the tunnel sent, and the flows spread
# over both CPUs although they share one outer header.
#
#   netns csA<pid>                          netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------------ vethB<pid> 10.200.0.2
#     tunnel device 10.201.0.1 (fd21::1)      tunnel device 10.201.0.2 (fd21::2)
#   udp_flows send: 64 inner flows          cpusteer load --inner all --cpus 0-1
#   tcpdump on vethA: the outer frames      udp_flows recv: SO_INCOMING_CPU per flow
#
# VXLAN is given one UDP source port, as many senders do; GRE, IPIP, SIT
# and ERSPAN have no ports at all; GENEVE picks its source port from the
# inner flow (Linux's way), so there the outer header is not shared.
# ERSPAN runs as type II (erspan) and type III (erspan3), both of which
# cpusteer names erspan. A tunnel kind this kernel cannot create is
# skipped with what `ip link add` said.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
PER_FLOW=4
TUN=cstun$$
KINDS="vxlan geneve gre ipip sit erspan erspan3"

t_plan $(for k in $KINDS; do echo "netns_tunnel_$k"; done)
netns_setup || t_abort "setup: $NETNS_WHY"
command -v tcpdump >/dev/null || t_skip_all "tcpdump is missing (scripts/setup.sh installs it)"

# `ip link add` arguments of the tunnel from LOCAL to REMOTE.
tunnel_args() {	# KIND LOCAL REMOTE
	case $1 in
	vxlan) echo "type vxlan id 42 local $2 remote $3 dstport 4789 srcport 40000 40001" ;;
	geneve) echo "type geneve id 42 remote $3" ;;
	# oseq, not seq: a receiver that checks sequence numbers (iseq)
	# drops every frame that arrives after a later one, and frames of one
	# session steered to different CPUs do.
	erspan) echo "type erspan local $2 remote $3 oseq key 10 erspan_ver 1 erspan 123" ;;
	erspan3) echo "type erspan local $2 remote $3 oseq key 10 erspan_ver 2 erspan_dir ingress erspan_hwid 7" ;;
	*) echo "type $1 local $2 remote $3" ;;
	esac
}

# The tunnel in both namespaces with its inner addresses; IPv6 inside SIT,
# IPv4 inside the others. Prints why when the kernel cannot make it.
tunnel_up() {	# KIND
	local kind=$1 err ns addr_a addr_b

	# shellcheck disable=SC2046
	if ! err=$(ip -n "$NSA" link add "$TUN" $(tunnel_args "$kind" "$IPA" "$IPB") 2>&1); then
		echo "this kernel cannot create a $kind device: $err"
		return 1
	fi
	# shellcheck disable=SC2046
	ip -n "$NSB" link add "$TUN" $(tunnel_args "$kind" "$IPB" "$IPA") || return 1
	if [ "$kind" = sit ]; then
		addr_a="fd21::1/64 nodad" addr_b="fd21::2/64 nodad"
	else
		addr_a=10.201.0.1/24 addr_b=10.201.0.2/24
	fi
	# shellcheck disable=SC2086
	ip -n "$NSA" addr add $addr_a dev "$TUN" || return 1
	# shellcheck disable=SC2086
	ip -n "$NSB" addr add $addr_b dev "$TUN" || return 1
	for ns in "$NSA" "$NSB"; do
		ip -n "$ns" link set "$TUN" up || return 1
	done
	# Over VXLAN, GENEVE and ERSPAN the inner addresses need ARP, and a
	# neighbour being resolved holds only a few datagrams: the first round
	# of 64 flows would lose some. Static entries, as an overlay's control
	# plane would install them.
	if [ "$kind" != gre ] && [ "$kind" != ipip ] && [ "$kind" != sit ]; then
		ip -n "$NSA" neigh replace 10.201.0.2 dev "$TUN" \
			lladdr "$(ip -n "$NSB" -j link show "$TUN" | jq -r '.[0].address')" || return 1
		ip -n "$NSB" neigh replace 10.201.0.1 dev "$TUN" \
			lladdr "$(ip -n "$NSA" -j link show "$TUN" | jq -r '.[0].address')" || return 1
	fi
	# Inner checksums in software before the veth (see netns_setup).
	in_a ethtool -K "$TUN" tx off >/dev/null 2>&1 || true
}

tunnel_down() {
	ip -n "$NSA" link del "$TUN" 2>/dev/null
	ip -n "$NSB" link del "$TUN" 2>/dev/null
}

inner_flows() {	# KIND
	if [ "$1" = sit ]; then
		echo "--src fd21::1 --dst fd21::2 --sport 32000 --dport 22000"
	else
		echo "--src 10.201.0.1 --dst 10.201.0.2 --sport 32000 --dport 22000"
	fi
}

# Captures on vethA in A into PCAP until stop_capture. Frames are short
# (the snapshot length is more than any of them, so none is cut), and a
# small snapshot with an 8 MiB buffer gives the ring room for a burst that
# the default (one 256 KiB slot per frame) dropped most of.
start_capture() {	# PCAP LOG
	local i

	bg_a tcpdump -i "$VA" -n -Z root --immediate-mode -U -s 512 -B 8192 -w "$1" >"$2" 2>&1
	CAPTURE_PID=$BG_PID
	for i in $(seq 50); do
		grep -q 'listening on' "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Stops the capture once PCAP holds at least N frames, or after 20 s:
# tcpdump stopped with frames still in its ring drops them, and on a busy
# machine it may take a while to read them all.
stop_capture() {	# PCAP N
	local i

	for i in $(seq 200); do
		[ "$(tcpdump -r "$1" 2>/dev/null | wc -l)" -ge "$2" ] && break
		sleep 0.1
	done
	kill -INT "$CAPTURE_PID" 2>/dev/null
	wait "$CAPTURE_PID" 2>/dev/null
}

# The name cpusteer gives the tunnel a KINDS entry makes.
cpusteer_kind() {	# KIND
	echo "${1%3}"
}

inner_steered() {	# KIND
	cs status "$VB" --json | jq -r ".instances[0].inner_steered.$(cpusteer_kind "$1")"
}

check_tunnel() {	# KIND
	local kind=$1 name=netns_tunnel_$1 why before after outers
	local rx=$NETNS_TMP/$kind.recv pcap=$NETNS_TMP/$kind.pcap json=$NETNS_TMP/$kind.json
	local want=$NETNS_TMP/$kind.want got=$NETNS_TMP/$kind.got

	t_begin "$name"
	if ! why=$(tunnel_up "$kind"); then
		tunnel_down
		t_skip "$why"
		return
	fi
	before=$(inner_steered "$kind")
	if ! start_capture "$pcap" "$NETNS_TMP/$kind.tcpdump"; then
		t_fail "tcpdump on $VA did not start: $(cat "$NETNS_TMP/$kind.tcpdump")"
		tunnel_down
		t_end
		return
	fi
	exchange_flows "$rx" "$(inner_flows "$kind")" "$FLOWS" "$PER_FLOW"
	stop_capture "$pcap" $((FLOWS * PER_FLOW))
	after=$(inner_steered "$kind")
	t_ge "frames steered by their inner flow, by status" $((FLOWS * PER_FLOW)) \
		$((after - before))

	if ! "$CPUSTEER" classify --cpus 0-1 --key "$KEY1" --inner all --json "$pcap" >"$json"; then
		t_fail "cpusteer classify failed"
		tunnel_down
		t_end
		return
	fi
	# The flows' datagrams, as classify saw them inside the tunnel: each
	# flow on one CPU ("sport dport cpu", once per flow).
	jq -c --arg k "$(cpusteer_kind "$kind")" '.packets[] | select(.tunnel == $k and .inner_fallback == null
		and .flow.proto == "udp" and .flow.dport >= 22000 and .flow.dport < 22064)' \
		"$json" >"$json.flows"
	jq -r '"\(.flow.sport) \(.flow.dport) \(.cpu)"' "$json.flows" | sort -u >"$want"
	[ "$(wc -l <"$want")" = "$FLOWS" ] || t_note_file "$NETNS_TMP/$kind.tcpdump" tcpdump
	awk '$1 == "flow" { print $4, $6, $10 }' "$rx" | sort >"$got"
	check_flows_placed "$want" "$got" "$FLOWS"
	if [ "$kind" != geneve ]; then
		outers=$(jq -r '"\(.outer.src) \(.outer.sport) \(.outer.dst) \(.outer.dport)"' \
			"$json.flows" | sort -u | wc -l)
		t_eq "outer headers around the $FLOWS flows" 1 "$outers"
	fi
	tunnel_down
	t_end
}

if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --inner all 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
for kind in $KINDS; do
	check_tunnel "$kind"
done
t_exit
