#!/usr/bin/env bash
# Each flow reaches the receiving stack on the CPU that `cpusteer classify`
# (the same BPF program, run on a capture of the same 5-tuples) predicts.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1, fd20::1 ---- vethB<pid> 10.200.0.2, fd20::2
#   udp_flows send: 64 flows              cpusteer load --cpus 0-1 --key KEY1
#   sport 30000+i -> dport 20000+i        udp_flows recv: one connected socket
#   (IPv6: 31000+i -> 21000+i)            per flow, reads SO_INCOMING_CPU
#
# The receiving sockets are connected: the kernel records SO_INCOMING_CPU
# only for connected UDP sockets.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
PER_FLOW=4

t_plan netns_flow_placement_ipv4 netns_flow_placement_ipv6 \
	netns_flow_placement_after_set_hash_siphash13 netns_set_hash_is_named_in_status_and_stats
netns_setup || t_abort "setup: $NETNS_WHY"

# Sends PER_FLOW datagrams on each flow and compares, flow by flow, the CPU
# that received them with the CPU classify reports for the flow's 5-tuple
# under the CLASSIFY-ARGS given.
check_placement() {	# NAME FLOW-ARGS [CLASSIFY-ARGS...]
	local name=$1 flows=$2 rx=$NETNS_TMP/$1.recv pcap=$NETNS_TMP/$1.pcap
	local want=$NETNS_TMP/$1.want got=$NETNS_TMP/$1.got

	shift 2
	t_begin "$name"
	if ! exchange_flows "$rx" "$flows" "$FLOWS" "$PER_FLOW"; then
		t_end
		return
	fi

	# shellcheck disable=SC2086
	udp_flows pcap $flows --flows $FLOWS --out "$pcap"
	if ! "$CPUSTEER" classify --cpus 0-1 --key "$KEY1" "$@" --json "$pcap" >"$NETNS_TMP/$name.json"; then
		t_fail "cpusteer classify failed"
		t_end
		return
	fi
	# "sport dport cpu" for each flow: predicted, then observed.
	jq -r '.packets[] | "\(.flow.sport) \(.flow.dport) \(.cpu)"' "$NETNS_TMP/$name.json" |
		sort >"$want"
	awk '$1 == "flow" { print $4, $6, $10 }' "$rx" | sort >"$got"
	check_flows_placed "$want" "$got" "$FLOWS"
	t_end
}

if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
check_placement netns_flow_placement_ipv4 "$FLOWS_V4"
check_placement netns_flow_placement_ipv6 "$FLOWS_V6"

# The other family, switched live: the flows follow it, and every view
# names it.
if ! out=$(cs set "$VB" --hash siphash13 2>&1); then
	t_abort "cpusteer set --hash siphash13 failed: $out"
fi
check_placement netns_flow_placement_after_set_hash_siphash13 "$FLOWS_V4" --hash siphash13
t_begin netns_set_hash_is_named_in_status_and_stats
t_eq "status's hash" siphash13 "$(cs status "$VB" --json | jq -r '.instances[0].hash')"
t_eq "stats' hash" siphash13 "$(cs stats "$VB" --json --count 1 --interval 1 | jq -r '.hash')"
t_end
t_exit
