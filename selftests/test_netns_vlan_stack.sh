#!/usr/bin/env bash
# VLAN stacks as the kernel's own VLAN devices tag them: with four tags (an
# 802.1AD service tag over three 802.1Q tags) each flow reaches the
# receiving stack on the CPU that `cpusteer classify` predicts for the
# same flow untagged, since tags never enter the hash; with five, every
# frame is passed as vlan_depth, counted, and still delivered.
#
#   netns csA<pid>                          netns csB<pid>
#   vethA<pid> ----------------------------- vethB<pid>
#     csvl1<pid> (802.1AD, VLAN 101)           csvl1<pid>, cpusteer load --cpus 0-1
#       csvl2..4<pid> (802.1Q, 102..104)         csvl2..4<pid> on vethB
#         [csvl5<pid> (802.1Q, 105)]               [csvl5<pid>]
#   innermost: 10.202.0.1                   innermost: 10.202.0.2
#   udp_flows send: 64 flows x 4            udp_flows recv: SO_INCOMING_CPU per flow
#
# The program tests cover the TPIDs 0x9100 and 0x9200, which Linux's VLAN
# devices do not send. A kernel without VLAN devices (the 8021q module) is
# skipped with what `ip link add` said.
#
# A veth hands its peer the outermost tag out of band (tx-vlan-offload),
# where an XDP program does not see it and a cpumap does not carry it on:
# the steered frame would reach B's stack without it and match no device.
# vethA inserts its tags in software here, so that the frames carry them
# on the wire, as a NIC receives them.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
PER_FLOW=4
VL=csvl
INNER_A=10.202.0.1
INNER_B=10.202.0.2
STACK_FLOWS="--src $INNER_A --dst $INNER_B --sport 33000 --dport 23000"
FOUR=netns_vlan_stack_of_four_lands_where_classify_says
FIVE=netns_vlan_stack_of_five_passes_as_vlan_depth

t_plan "$FOUR" "$FIVE"
netns_setup v4only || t_abort "setup: $NETNS_WHY"

# A stack of DEPTH VLAN devices on each veth, the innermost with the
# address the flows use and a static neighbour. Prints why when the kernel
# cannot make one.
stack_up() {	# DEPTH
	local depth=$1 i ns parent proto err mac_a mac_b

	for ns in "$NSA" "$NSB"; do
		parent=$VA
		[ "$ns" = "$NSB" ] && parent=$VB
		for i in $(seq "$depth"); do
			proto=802.1Q
			[ "$i" = 1 ] && proto=802.1ad
			if ! err=$(ip -n "$ns" link add link "$parent" name "$VL$i$$" type vlan \
				proto "$proto" id $((100 + i)) 2>&1); then
				echo "this kernel cannot create a VLAN device: $err"
				return 1
			fi
			# No IPv6 on them: nothing but the test's frames crosses.
			ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$VL$i$$.disable_ipv6=1" || return 1
			ip -n "$ns" link set "$VL$i$$" up || return 1
			parent=$VL$i$$
		done
	done
	ip -n "$NSA" addr add "$INNER_A/24" dev "$VL$depth$$" || return 1
	ip -n "$NSB" addr add "$INNER_B/24" dev "$VL$depth$$" || return 1
	mac_a=$(ip -n "$NSA" -j link show "$VL$depth$$" | jq -r '.[0].address')
	mac_b=$(ip -n "$NSB" -j link show "$VL$depth$$" | jq -r '.[0].address')
	ip -n "$NSA" neigh replace "$INNER_B" lladdr "$mac_b" dev "$VL$depth$$" nud permanent &&
		ip -n "$NSB" neigh replace "$INNER_A" lladdr "$mac_a" dev "$VL$depth$$" nud permanent
}

# The outermost device takes the ones above it along.
stack_down() {
	ip -n "$NSA" link del "${VL}1$$" 2>/dev/null
	ip -n "$NSB" link del "${VL}1$$" 2>/dev/null
}

# A counter of vethB's instance since load, from the exporter: SERIES is
# the family and any labels after the instance's own.
total() {	# FAMILY [LABELS]
	local series="$1{interface=\"$VB\",netns=\"$(in_b "$TOOLS/netns_cookie")\"${2:+,$2}}"

	cs exporter --once | S=$series awk '$1 == ENVIRON["S"] { print $2; found = 1 }
		END { if (!found) print "none" }'
}

if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
in_a ethtool -K "$VA" txvlan off tx-vlan-stag-hw-insert off >/dev/null 2>&1 ||
	t_abort "cannot turn off VLAN tag insertion on $VA"

t_begin "$FOUR"
if ! why=$(stack_up 4); then
	stack_down
	t_skip "$why"
else
	vlan0=$(total cpusteer_vlan_packets_total)
	depth0=$(total cpusteer_passed_packets_total 'reason="vlan_depth"')
	exchange_flows "$NETNS_TMP/four.recv" "$STACK_FLOWS" "$FLOWS" "$PER_FLOW"
	t_ge "frames counted as tagged" $((FLOWS * PER_FLOW)) \
		$(($(total cpusteer_vlan_packets_total) - vlan0))
	t_eq "frames passed as vlan_depth" 0 \
		$(($(total cpusteer_passed_packets_total 'reason="vlan_depth"') - depth0))
	predict_bare_flows "$NETNS_TMP/want" "$STACK_FLOWS" "$FLOWS"
	received_flows "$NETNS_TMP/four.recv" "$NETNS_TMP/got"
	check_flows_placed "$NETNS_TMP/want" "$NETNS_TMP/got" "$FLOWS"
	stack_down
fi
t_end

t_begin "$FIVE"
if ! why=$(stack_up 5); then
	stack_down
	t_skip "$why"
else
	depth0=$(total cpusteer_passed_packets_total 'reason="vlan_depth"')
	"$TOOLS/steer_maps" counters "$PINS" >"$NETNS_TMP/c0"
	exchange_flows "$NETNS_TMP/five.recv" "$STACK_FLOWS" "$FLOWS" 1
	"$TOOLS/steer_maps" counters "$PINS" >"$NETNS_TMP/c1"
	t_ge "frames passed as vlan_depth" "$FLOWS" \
		$(($(total cpusteer_passed_packets_total 'reason="vlan_depth"') - depth0))
	t_eq "frames redirected meanwhile" 0 \
		$(($(field "$NETNS_TMP/c1" redirected) - $(field "$NETNS_TMP/c0" redirected)))
	stack_down
fi
t_end
t_exit
