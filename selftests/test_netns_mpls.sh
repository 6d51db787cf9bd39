#!/usr/bin/env bash
# MPLS as the kernel's own MPLS stack labels it: A pushes two labels on
# each datagram (a route with `encap mpls`), B's label routes pop them
# and deliver the datagram locally, and each flow reaches B's stack on
# the CPU that `cpusteer classify` predicts for the same flow unlabelled,
# since labels never enter the hash. Every frame is counted as MPLS.
#
#   netns csA<pid>                          netns csB<pid>
#   vethA<pid> 10.200.0.1 ----------------- vethB<pid> 10.200.0.2
#   route 10.203.0.2 encap mpls 100/200       cpusteer load --cpus 0-1
#   udp_flows send: 64 flows x 4              labels 100 and 200: pop (dev lo)
#                                             10.203.0.2 on lo
#                                             udp_flows recv: SO_INCOMING_CPU per flow
#
# Each label route pops its label and sends the rest to lo, which hands
# it back to the stack of the CPU it runs on: the CPU the frame was
# steered to. A kernel
# without MPLS routing (the mpls_router and mpls_iptunnel modules) is
# skipped with what failed.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
PER_FLOW=4
DST=10.203.0.2
MPLS_FLOWS="--src $IPA --dst $DST --sport 34000 --dport 24000"
NAME=netns_mpls_labels_land_where_classify_says

t_plan "$NAME"
netns_setup v4only || t_abort "setup: $NETNS_WHY"

# The label routes in B and the labelling route in A. Prints why when
# the kernel cannot make them.
mpls_up() {
	local err

	modprobe -q mpls_router 2>/dev/null
	modprobe -q mpls_iptunnel 2>/dev/null
	if ! err=$(ip netns exec "$NSB" sysctl -qw net.mpls.platform_labels=1000 2>&1); then
		echo "this kernel has no MPLS routing: $err"
		return 1
	fi
	# Labels are taken in on vethB, and on lo, where the first pop sends
	# the rest of the stack.
	ip netns exec "$NSB" sysctl -qw "net.mpls.conf.$VB.input=1" net.mpls.conf.lo.input=1 ||
		return 1
	# The popped datagram comes back in through lo, with A's address as
	# its source: no reverse-path check there.
	ip netns exec "$NSB" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.lo.rp_filter=0 ||
		return 1
	ip -n "$NSB" addr add "$DST/32" dev lo || return 1
	ip -n "$NSB" -f mpls route add 100 dev lo || return 1
	ip -n "$NSB" -f mpls route add 200 dev lo || return 1
	if ! err=$(ip -n "$NSA" route add "$DST/32" encap mpls 100/200 via "$IPB" dev "$VA" 2>&1); then
		echo "this kernel cannot push MPLS labels: $err"
		return 1
	fi
}

if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi

t_begin "$NAME"
if ! why=$(mpls_up); then
	t_skip "$why"
else
	mpls0=$(in_b "$CPUSTEER" status "$VB" --json | jq -r '.instances[0].seen_mpls')
	exchange_flows "$NETNS_TMP/mpls.recv" "$MPLS_FLOWS" "$FLOWS" "$PER_FLOW"
	mpls1=$(in_b "$CPUSTEER" status "$VB" --json | jq -r '.instances[0].seen_mpls')
	t_ge "frames counted as MPLS, by status" $((FLOWS * PER_FLOW)) $((mpls1 - mpls0))
	predict_bare_flows "$NETNS_TMP/want" "$MPLS_FLOWS" "$FLOWS"
	received_flows "$NETNS_TMP/mpls.recv" "$NETNS_TMP/got"
	check_flows_placed "$NETNS_TMP/want" "$NETNS_TMP/got" "$FLOWS"
fi
t_end
t_exit
