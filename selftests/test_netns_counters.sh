#!/usr/bin/env bash
# The steering program's counters add up on real traffic: every frame it
# saw was redirected, passed for a reason or counted as an error, and the
# datagrams the test sent are all among the redirected ones.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   (no IPv6: nothing else leaves A)      cpusteer load --cpus 0-1
#   udp_flows send: 16 flows x 25         udp_flows recv, 16 sockets
#
# Static neighbour entries, so there is no ARP; the frame count K is exact.
set -u
. "$(dirname "$0")/lib_netns.sh"

NAME=netns_counters_add_up
FLOWS=16
ROUNDS=25
K=$((FLOWS * ROUNDS))

t_plan "$NAME"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
t_begin $NAME
out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1) || t_abort "cpusteer load failed: $out"

rx=$NETNS_TMP/recv
# shellcheck disable=SC2086
bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --expect $K --max 10000 >"$rx"
wait_ready "$rx" || t_fail "the receiver in B did not start"
# shellcheck disable=SC2086
sent=$(in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count $ROUNDS)
wait "$BG_PID"
read_counters "$NETNS_TMP/c"

t_eq "sender" "sent $K failed 0" "$sent"
t_eq "datagrams received in B" "total $K" "$(grep '^total' "$rx")"
t_counters_reconcile "$NETNS_TMP/c"
rx_packets=$(field "$NETNS_TMP/c" rx_packets)
redirected=$(field "$NETNS_TMP/c" redirected)
errors=$(field "$NETNS_TMP/c" errors)
t_ge "rx_packets" $K "$rx_packets"
t_ge "redirected" $K "$redirected"
# The per-CPU slots hold the same frames as the total.
per_cpu=$(awk '$1 ~ /^redirected_cpu/ { s += $2 } END { print s + 0 }' "$NETNS_TMP/c")
t_eq "sum of redirected per CPU" "$redirected" "$per_cpu"
t_eq "errors" 0 "$errors"
t_end
t_exit
