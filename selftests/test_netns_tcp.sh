#!/usr/bin/env bash
# TCP through the steering program: an iperf3 transfer A -> B completes,
# its segments really went through the cpumap, and B's stack counts no
# checksum errors (steered frames lose the "checksum offloaded" state, so a
# sender that leaves checksums to the veth would show up here).
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   tx checksumming off                   cpusteer load --cpus 0-1
#   iperf3 -c 10.200.0.2 -t 3 -P 4        iperf3 -s -1
set -u
. "$(dirname "$0")/lib_netns.sh"

NAME=netns_tcp_iperf3_no_checksum_errors
t_plan "$NAME"
netns_setup || t_abort "setup: $NETNS_WHY"
t_begin $NAME
if ! command -v iperf3 >/dev/null; then
	t_skip "iperf3 is not installed"
	exit 0
fi
out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1) || t_abort "cpusteer load failed: $out"

csum_before=$(nstat_b TcpInCsumErrors)
read_counters "$NETNS_TMP/before"
bg_b timeout 30 iperf3 -s -1 -B "$IPB" -p 5201 >"$NETNS_TMP/server.out" 2>&1
server=$BG_PID
# The server needs a moment to listen; retry while it refuses. iperf3 -J
# exits 0 even when it failed, so its JSON "error" decides.
for try in $(seq 20); do
	in_a timeout 20 iperf3 -c "$IPB" -p 5201 -t 3 -P 4 -J --connect-timeout 2000 \
		>"$NETNS_TMP/client.json" 2>&1
	rc=$?
	error=$(jq -r '.error // empty' "$NETNS_TMP/client.json" 2>&1)
	[ -n "$error" ] && [ $rc = 0 ] && rc=1
	case $error in *"Connection refused"*) sleep 0.2 ;; *) break ;; esac
done
# A client that never got through leaves the server waiting: end it.
[ $rc = 0 ] || kill "$server" 2>/dev/null
wait "$server"
server_rc=$?
read_counters "$NETNS_TMP/after"
csum_after=$(nstat_b TcpInCsumErrors)

t_eq "iperf3 client exit status" 0 "$rc"
t_eq "iperf3 server exit status" 0 "$server_rc"
t_eq "iperf3 error" "" "$error"
received=$(jq -r '.end.sum_received.bytes // 0' "$NETNS_TMP/client.json" 2>/dev/null)
t_ge "bytes the server received" 1000000 "${received%.*}"
t_eq "TcpInCsumErrors in B" "${csum_before:-0}" "${csum_after:-0}"
# Four connections over ports the client picks: they must all have been
# redirected, well beyond the handshakes.
steered=$(($(field "$NETNS_TMP/after" redirected) - $(field "$NETNS_TMP/before" redirected)))
t_ge "frames redirected through the cpumap" 1000 "$steered"
t_end
t_exit
