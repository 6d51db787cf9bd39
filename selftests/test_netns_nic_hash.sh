#!/usr/bin/env bash
# `load --hash nic`: the program reads the RX hash the driver gives
# (bpf_xdp_metadata_rx_hash) and steers by it without parsing; frames it
# gives none for take the keyed software hash, counted apart. A veth
# gives the hash of the skb for frames that came through its peer's
# stack, and none for frames its peer sent by XDP.
#
#   netns csA<pid>                         netns csB<pid>
#   vethA<pid> 10.200.0.1 ----------------- vethB<pid> 10.200.0.2
#   udp_flows send: 64 flows x 5           cpusteer load --cpus 0-1 --key KEY1
#     (through A's stack: hashed)            --hash nic
#   udp4_bounce (XDP_TX): 1 flow from      udp_flows recv, 64 sockets
#     B sent back by XDP (no hash)         udp_flows send: 1 flow to A
#   python3: 5 datagrams of IP protocol 253 (through A's stack, a hash of no ports)
#
# No IPv6 on A and static neighbours: every frame B counts is one the
# test sent, so the counts are exact.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
PER=5
BOUNCE_FRAMES=2000
BOUNCE_OBJ=$NETNS_TOP/build/selftests/udp4_bounce.bpf.o
BOUNCE_FLOW="--src $IPB --dst $IPA --sport 40000 --dport 41000"

STACK=netns_nic_hash_steers_stack_frames_by_the_drivers_hash
XDP=netns_nic_hash_falls_back_to_the_software_hash_per_frame
PORTLESS=netns_nic_hash_counts_a_hash_of_no_ip_header_apart
RECONCILE=netns_nic_hash_counters_reconcile
REFUSED=netns_nic_hash_refusals_change_nothing
PORTLESS_FRAMES=5

t_plan "$STACK" "$XDP" "$PORTLESS" "$RECONCILE" "$REFUSED"
netns_setup v4only || t_abort "setup: $NETNS_WHY"

if ! "$CPUSTEER" status --json | jq -e '.kernel.rx_hash_kfunc' >/dev/null; then
	# The refusal is the behaviour to check on such a kernel.
	t_begin "$STACK"
	err=$(cs load "$VB" --cpus 0-1 --hash nic 2>&1 >/dev/null)
	t_eq "exit status" 1 "$?"
	case $err in
	*"no bpf_xdp_metadata_rx_hash"*) ;;
	*) t_fail "the refusal does not name the missing kfunc: $err" ;;
	esac
	t_eq "XDP program after the refusal" "" "$(xdp_prog_id)"
	t_end
	t_skip_all "this kernel has no bpf_xdp_metadata_rx_hash (Linux 6.3 and later); load --hash nic is refused, as checked"
fi

out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --hash nic 2>&1) || t_abort "load --hash nic failed: $out"
t_eq "hash in status" nic "$(cs status "$VB" --json | jq -r ".instances[0].hash")"
t_eq "the driver's RX hash in status" true "$(cs status "$VB" --json | jq -r ".instances[0].driver_rx_hash")"

# One "name value" line per nic_hash outcome, from status --json.
nic_counts() { cs status "$VB" --json | jq -r '.instances[0].nic_hash | to_entries[] | "\(.key) \(.value)"'; }

t_begin "$STACK"
exchange_flows "$NETNS_TMP/rx" "$FLOWS_V4" $FLOWS $PER || t_abort "no receiver"
nic_counts >"$NETNS_TMP/n1"
t_eq "frames steered by the driver's hash" $((FLOWS * PER)) "$(field "$NETNS_TMP/n1" used)"
t_eq "frames without one" 0 "$(field "$NETNS_TMP/n1" none)"
cpus=$(awk '$1 == "flow" { print $NF }' "$NETNS_TMP/rx" | sort -u | tr '\n' ' ')
t_eq "CPUs the flows landed on" "0 1 " "$cpus"
# The software hash with the same key would place them as classify says;
# the driver's hash is another one, so some flows must land elsewhere.
predict_bare_flows "$NETNS_TMP/want" "$FLOWS_V4" "$FLOWS"
received_flows "$NETNS_TMP/rx" "$NETNS_TMP/got"
t_eq "flows classified" $FLOWS "$(wc -l <"$NETNS_TMP/want")"
t_eq "flows received" $FLOWS "$(wc -l <"$NETNS_TMP/got")"
elsewhere=$(join -j1 <(awk '{ print $1 ":" $2, $3 }' "$NETNS_TMP/want" | sort) \
	<(awk '{ print $1 ":" $2, $3 }' "$NETNS_TMP/got" | sort) | awk '$2 != $3' | wc -l)
echo "# $elsewhere of $FLOWS flows are where the software hash would not put them"
t_ge "flows placed otherwise than by the software hash" 1 "$elsewhere"
t_end

t_begin "$XDP"
read_counters "$NETNS_TMP/c0"
nic_counts >"$NETNS_TMP/n0"
# One flow from B's stack that vethA sends straight back by XDP_TX: it
# returns to B as XDP frames, with no driver hash, so every frame takes
# multilinear and goes to the CPU classify names for it.
if ! in_a ip link set dev "$VA" xdpdrv obj "$BOUNCE_OBJ" sec xdp; then
	t_fail "cannot attach $BOUNCE_OBJ to $VA"
fi
sent=$(in_b "$TOOLS/udp_flows" send $BOUNCE_FLOW --flows 1 --count $BOUNCE_FRAMES)
sleep 0.5
in_a ip link set dev "$VA" xdpdrv off
read_counters "$NETNS_TMP/c1"
nic_counts >"$NETNS_TMP/n2"
t_eq "sender in B" "sent $BOUNCE_FRAMES failed 0" "$sent"
# shellcheck disable=SC2086
udp_flows pcap $BOUNCE_FLOW --flows 1 --out "$NETNS_TMP/bounce.pcap"
cpu=$("$CPUSTEER" classify "$NETNS_TMP/bounce.pcap" --cpus 0-1 --key "$KEY1" --json |
	jq -r '.packets[0].cpu')
back=$(($(field "$NETNS_TMP/c1" rx_packets) - $(field "$NETNS_TMP/c0" rx_packets)))
# vethA may fail to bounce a frame when B's ring is full (its
# xdp_tx_errors); every frame that came back is checked.
t_ge "frames bounced back to B" $((BOUNCE_FRAMES / 2)) "$back"
t_eq "frames without a driver hash" "$back" \
	"$(($(field "$NETNS_TMP/n2" none) - $(field "$NETNS_TMP/n0" none)))"
t_eq "frames steered by the driver's hash meanwhile" 0 \
	"$(($(field "$NETNS_TMP/n2" used) - $(field "$NETNS_TMP/n0" used)))"
t_eq "frames redirected to CPU $cpu, where multilinear puts the flow" "$back" \
	"$(($(field "$NETNS_TMP/c1" "redirected_cpu$cpu") - $(field "$NETNS_TMP/c0" "redirected_cpu$cpu")))"
t_end

# A veth reports the hash of an skb as covering IP only when it covers
# ports (the skb's l4_hash): the hash of an IP datagram of a protocol
# without ports (253, for experiments) comes with no IP type, counts as
# not_ip, and the frame takes the software hash.
t_begin "$PORTLESS"
read_counters "$NETNS_TMP/c0"
nic_counts >"$NETNS_TMP/n0"
out=$(in_a python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 253)
for i in range(int(sys.argv[2])):
    s.sendto(b"cpusteer", (sys.argv[1], 0))
' "$IPB" $PORTLESS_FRAMES 2>&1) || t_fail "sending from A failed: $out"
sleep 0.5
read_counters "$NETNS_TMP/c1"
nic_counts >"$NETNS_TMP/n1"
t_eq "frames received meanwhile" $PORTLESS_FRAMES \
	"$(($(field "$NETNS_TMP/c1" rx_packets) - $(field "$NETNS_TMP/c0" rx_packets)))"
t_eq "frames whose hash covers no IP header" $PORTLESS_FRAMES \
	"$(($(field "$NETNS_TMP/n1" not_ip) - $(field "$NETNS_TMP/n0" not_ip)))"
t_eq "frames steered by the driver's hash meanwhile" 0 \
	"$(($(field "$NETNS_TMP/n1" used) - $(field "$NETNS_TMP/n0" used)))"
t_end

t_begin "$RECONCILE"
read_counters "$NETNS_TMP/c"
nic_counts >"$NETNS_TMP/n"
rx=$(field "$NETNS_TMP/c" rx_packets)
t_eq "received = used + none + not_ip" "$rx" \
	"$(awk '{ s += $2 } END { print s }' "$NETNS_TMP/n")"
t_counters_reconcile "$NETNS_TMP/c"
t_end

# What --hash nic cannot be, refused in one line with nothing changed.
t_begin "$REFUSED"
prog=$(xdp_prog_id)
table() { "$TOOLS/steer_maps" table "$PINS" 512; }
table >"$NETNS_TMP/t0"
refuse() {	# MENTION COMMAND...
	local mention=$1

	shift
	t_refused "${*: -4}" "*$mention*" "$@"
}
refuse "to or from nic" cs set "$VB" --hash siphash13
refuse "--inner" cs set "$VB" --inner all
refuse "--symmetric" cs set "$VB" --symmetric
refuse "test runs" "$CPUSTEER" classify "$NETNS_TMP/gen.pcap" --hash nic
table >"$NETNS_TMP/t1"
cmp -s "$NETNS_TMP/t0" "$NETNS_TMP/t1" || t_fail "a refusal changed the table"
t_eq "hash after the refusals" nic "$(cs status "$VB" --json | jq -r ".instances[0].hash")"
t_eq "program after the refusals" "$prog" "$(xdp_prog_id)"
out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
refuse "skb mode" cs load "$VB" --hash nic --xdp-mode skb
refuse "--no-touch" cs load "$VB" --hash nic --no-touch
refuse "--inner" cs load "$VB" --hash nic --inner gre
out=$(cs load "$VB" --cpus 0-1 2>&1) || t_fail "load failed: $out"
refuse "to or from nic" cs set "$VB" --hash nic
t_eq "hash after set --hash nic" multilinear "$(cs status "$VB" --json | jq -r ".instances[0].hash")"
t_end
t_exit
