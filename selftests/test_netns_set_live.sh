#!/usr/bin/env bash
# `cpusteer set` on an instance that is carrying traffic: the CPU set
# shrinks to CPU 0, then grows back to 0-1 with a new key, while a sender
# runs. Nothing is lost without a counter saying so, the program is never
# detached, and afterwards every flow lands where the new configuration
# puts it: classify (the real program, the new key) gives each flow's
# bucket, the live indirection table gives the bucket's CPU.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   (no IPv6: nothing else leaves A)      cpusteer load --cpus 0-1 --key KEY1
#   udp_flows send: 64 flows, until       set --cpus 0
#   500 frames came after the last set    set --cpus 0-1 --key KEY2
#   then 3 datagrams per flow             udp_flows recv, 64 sockets
#
# Each step waits for 500 more frames counted by the program, not for a
# time, so the changes fall inside the traffic on any machine's speed.
# The table after "0-1 -> 0 -> 0-1" is not the table of a fresh load
# (set moves as few buckets as it can), so the CPU comes from the live
# table, not from classify's own.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
BUCKETS=512
LOST=netns_set_under_traffic_loses_nothing_silently
FOLLOW=netns_set_flows_follow_new_table

t_plan "$LOST" "$FOLLOW"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --buckets $BUCKETS 2>&1) ||
	t_abort "cpusteer load failed: $out"

# Every place the kernel counts a datagram it dropped on the way: the veth
# pair, B's UDP layer. The sum goes into stdout.
counted_drops() {
	local a b udp

	a=$(ip netns exec "$NSA" cat "/sys/class/net/$VA/statistics/tx_dropped")
	b=$(ip netns exec "$NSB" cat "/sys/class/net/$VB/statistics/rx_dropped")
	udp=$(in_b nstat -az UdpRcvbufErrors UdpInErrors UdpInCsumErrors |
		awk '$1 ~ /^Udp/ { s += $2 } END { print s + 0 }')
	echo $((a + b + udp))
}

t_begin $LOST
drops_before=$(counted_drops)
prog_before=$(xdp_prog_id)
rx=$NETNS_TMP/recv
# shellcheck disable=SC2086
bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --max 120000 >"$rx"
receiver=$BG_PID
wait_ready "$rx" || t_fail "the receiver in B did not start"
# cpusteer stats sees the drops only tracepoints count: a full cpumap
# queue, an skb the cpumap kthread could not allocate.
bg_b "$CPUSTEER" stats "$VB" --json --interval 1 >"$NETNS_TMP/stats" 2>"$NETNS_TMP/stats.err"
stats=$BG_PID
read_counters "$NETNS_TMP/c0"
n=$(field "$NETNS_TMP/c0" rx_packets)
# shellcheck disable=SC2086
bg_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --seconds 100 --gap 100 >"$NETNS_TMP/send1"
sender=$BG_PID
n=$(wait_counted "$n" 500) || t_fail "the sender's first 500 frames did not arrive"
out=$(cs set "$VB" --cpus 0 2>&1) || t_fail "set --cpus 0 failed: $out"
n=$(wait_counted "$n" 500) || t_fail "500 frames did not arrive after set --cpus 0"
out=$(cs set "$VB" --cpus 0-1 --key "$KEY2" 2>&1) || t_fail "set --cpus 0-1 --key KEY2 failed: $out"
wait_counted "$n" 500 >/dev/null || t_fail "500 frames did not arrive after the second set"
kill -TERM "$sender"
wait "$sender"
# One more round per flow, all sent after both changes: the CPU each flow
# reports is where the final configuration put it.
# shellcheck disable=SC2086
in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count 3 >"$NETNS_TMP/send2"
# Every datagram is sent: what is still on its way drains before the end.
kill -USR1 "$receiver"
wait "$receiver"
sleep 1
kill "$stats" 2>/dev/null
wait "$stats"
read_counters "$NETNS_TMP/c"
drops=$(($(counted_drops) - drops_before))
cpumap_drops=$(tail -n 1 "$NETNS_TMP/stats" |
	jq '.totals.enqueue.drops + .totals.kthread.drops' 2>/dev/null)
if [ -z "$cpumap_drops" ]; then
	t_fail "cpusteer stats gave no totals: $(head -c 300 "$NETNS_TMP/stats.err")"
	cpumap_drops=0
fi
drops=$((drops + cpumap_drops))

sent1=$(awk '/^sent/ { print $2 }' "$NETNS_TMP/send1")
sent2=$(awk '/^sent/ { print $2 }' "$NETNS_TMP/send2")
sent=$((${sent1:-0} + ${sent2:-0}))
received=$(awk '/^total/ { print $2 }' "$rx")
t_ge "datagrams sent during the changes" 1000 "${sent1:-0}"
t_eq "datagrams sent after the changes" $((FLOWS * 3)) "${sent2:-0}"
t_eq "send failures" "0 0" "$(awk '/^sent/ { printf "%s%s", s, $4; s = " " }' \
	"$NETNS_TMP/send1" "$NETNS_TMP/send2")"
lost=$((sent - ${received:-0}))
if [ "$lost" -lt 0 ] || [ "$lost" -gt "$drops" ]; then
	t_fail "sent $sent, received ${received:-0}: $lost lost, but the kernel counted $drops drops"
fi
t_counters_reconcile "$NETNS_TMP/c"
t_ge "rx_packets (all sent but what the veth dropped)" $((sent - drops)) \
	"$(field "$NETNS_TMP/c" rx_packets)"
t_eq "XDP program on vethB (never detached)" "$prog_before" "$(xdp_prog_id)"
t_end

t_begin $FOLLOW
pcap=$NETNS_TMP/flows.pcap
# shellcheck disable=SC2086
udp_flows pcap $FLOWS_V4 --flows $FLOWS --out "$pcap"
"$CPUSTEER" classify --cpus 0-1 --key "$KEY2" --buckets $BUCKETS --json "$pcap" \
	>"$NETNS_TMP/classify.json" || t_fail "cpusteer classify failed"
"$TOOLS/steer_maps" table "$PINS" $BUCKETS >"$NETNS_TMP/table" || t_fail "cannot read bucket_table"
# "sport:dport bucket" from classify, then the live table's CPU for it.
jq -r '.packets[] | "\(.flow.sport):\(.flow.dport) \(.bucket)"' "$NETNS_TMP/classify.json" |
	awk 'NR == FNR { cpu[NR - 1] = $1; next } { print $1, cpu[$2] }' "$NETNS_TMP/table" - |
	sort >"$NETNS_TMP/want"
awk '$1 == "flow" { print $4 ":" $6, $10 }' "$rx" | sort >"$NETNS_TMP/got"
t_eq "flows predicted" $FLOWS "$(wc -l <"$NETNS_TMP/want")"
t_eq "flows compared" $FLOWS "$(join "$NETNS_TMP/want" "$NETNS_TMP/got" | wc -l)"
mismatches=$(join "$NETNS_TMP/want" "$NETNS_TMP/got" | awk '$2 != $3' | head -5)
if [ -n "$mismatches" ]; then
	t_fail "flows on another CPU than the new configuration gives (flow, predicted, observed):"
	while read -r line; do t_fail "  $line"; done <<<"$mismatches"
fi
t_eq "CPUs the flows landed on" "0 1 " "$(awk '{ print $2 }' "$NETNS_TMP/got" | sort -u | tr '\n' ' ')"
# Back at 0-1 with equal weights, each CPU owns half the buckets.
t_eq "buckets per CPU in the live table" "256 256 " \
	"$(sort -n "$NETNS_TMP/table" | uniq -c | awk '{ printf "%s ", $1 }')"
t_end
t_exit
