#!/usr/bin/env bash
# cpusteer-bench gen, the built-in traffic generator: every frame it reports as
# sent reaches the receiver's steering program or is counted as a veth
# transmit loss; its flows spread over the CPUs; IPv6 and TCP frames carry
# checksums the receiving stack accepts; both ways of transmitting work, or
# live frames are refused in one line where the kernel refuses them; bad
# input is refused in one line.
#
#   netns csA<pid>                          netns csB<pid>
#   vethA<pid> (no IPv6: nothing    ----->  vethB<pid>
#   else leaves A)                          cpusteer load --cpus 0-1
#   cpusteer-bench gen vethA                  --remote drop (counting tests)
#     --dst-mac <vethB>
#     XDP live frames (XDP_TX), or          --remote pass  (checksum test,
#     a packet socket                         with 10.201.0.2 and fd21::2)
#                                           sport_count (XDP: frames per
#                                             source port; elephants test)
#
# The counts come from four places that must agree: gen's "sent" (the
# generator program's XDP_TX verdicts, or what the packet socket took), the
# steering program's rx_packets, vethA's tx statistics (a veth counts what
# its peer's XDP took as its own tx_packets, and what it failed to pass on
# as tx_dropped) and `ethtool -S` on both ends.
#
# Not in kernel runs: it drives the live-frames generator, whose test runs re-patch the XDP dispatcher while the receiver's cpumap threads run programs through it, which crashed 6.12 guests under QEMU (README, Kernels); what it counts at the receiver is the steering program the test_steer_* programs check there
set -u
# shellcheck source=selftests/lib_netns.sh
. "$(dirname "$0")/lib_netns.sh"

TESTS="trafficgen_ipv4_udp_delivered trafficgen_flows_spread_over_cpus trafficgen_one_flow_one_cpu
	trafficgen_ipv6_udp_delivered trafficgen_ipv4_tcp_delivered trafficgen_ipv6_tcp_delivered
	trafficgen_packet_socket_delivered trafficgen_live_frames_delivered_or_refused
	trafficgen_stops_on_sigint trafficgen_checksums_valid trafficgen_elephants_share
	trafficgen_bad_input"

# shellcheck disable=SC2086
t_plan $TESTS
netns_setup v4only || t_abort "setup: $NETNS_WHY"
MAC_B=$(ip -n "$NSB" link show "$VB" | awk '/link\/ether/ { print $2 }')
GEN_JSON=$NETNS_TMP/gen.json
GEN_ERR=$NETNS_TMP/gen.err
SPORT_OBJ=$NETNS_TOP/build/selftests/sport_count.bpf.o

# The veths' counters as "name value" lines: a veth counts what its peer's
# XDP took as its own tx_packets, and failed XDP transmits as tx_dropped.
veth_counters() {
	ip netns exec "$NSA" sh -c "cd /sys/class/net/$VA/statistics &&
		echo a_tx_packets \$(cat tx_packets) && echo a_tx_dropped \$(cat tx_dropped)"
	in_a ethtool -S "$VA" | awk '$1 ~ /^tx_queue_0_xdp_xmit/ { sub(":", "", $1); print "a_" $1, $2 }'
	in_b ethtool -S "$VB" | awk '$1 ~ /^rx_queue_0_xdp_packets/ { sub(":", "", $1); print "b_" $1, $2 }'
}

# Every counter the tests compare, as "name value" lines in FILE.
snapshot() {	# FILE
	{
		"$TOOLS/steer_maps" counters "$PINS"
		veth_counters
	} >"$1"
}

# "PORT-INDEX FRAMES" lines from sport_count on vethB: index 0 is port
# 1024; 4096 counts every other frame.
sport_counts() {
	local prog map

	prog=$(ip -n "$NSB" -j link show dev "$VB" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["xdp"]["prog"]["id"])')
	map=$(bpftool prog show id "$prog" -j |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["map_ids"][0])')
	bpftool map dump id "$map" -j | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    if e["formatted"]["value"]:
        print(e["formatted"]["key"], e["formatted"]["value"])'
}

# How much NAME grew between the two snapshots (absent counts as 0).
d() {	# NAME
	local a b

	a=$(field "$NETNS_TMP/after" "$1")
	b=$(field "$NETNS_TMP/before" "$1")
	echo $((${a:-0} - ${b:-0}))
}

json_num() {	# KEY
	sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" "$GEN_JSON"
}

# Runs cpusteer-bench gen on vethA towards vethB's MAC with the options given,
# between two snapshots. The pause lets frames still queued in the veth
# ring or a cpumap reach the counters.
gen_run() {	# GEN-OPTIONS...
	snapshot "$NETNS_TMP/before"
	in_a "$CPUSTEER_BENCH" gen "$VA" --json --dst-mac "$MAC_B" "$@" >"$GEN_JSON" 2>"$GEN_ERR"
	GEN_RC=$?
	sleep 0.5
	snapshot "$NETNS_TMP/after"
}

# (Re)loads cpusteer on vethB; on failure LOAD_ERR says why.
load_b() {	# REMOTE
	cs unload "$VB" >/dev/null 2>&1
	LOAD_ERR=$(cs load "$VB" --cpus 0-1 --remote "$1" 2>&1)
}

# Only counters this kernel's veth has are compared.
has() {	# NAME
	grep -q "^$1 " "$NETNS_TMP/after"
}

json_str() {	# KEY
	sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$GEN_JSON"
}

# What vethA lost of the frames gen sent: live frames that failed to
# transmit count as xdp_xmit_errors (and tx_dropped); a packet socket's
# frames that the full ring turned away count as tx_dropped only.
transmit_losses() {
	if [ "$(json_str transmit)" = live-frames ]; then
		d a_tx_queue_0_xdp_xmit_errors
	else
		d a_tx_dropped
	fi
}

# gen ran and every frame it counted is accounted for at the receiver.
check_delivered() {
	local sent rx lost transmit

	if [ "$GEN_RC" != 0 ]; then
		t_fail "cpusteer-bench gen exited with $GEN_RC: $(head -1 "$GEN_ERR")"
		return 1
	fi
	transmit=$(json_str transmit)
	sent=$(json_num sent)
	rx=$(d rx_packets)
	lost=$(transmit_losses)
	t_ge "frames sent" 1 "$sent"
	t_eq "sent = steering rx_packets + vethA's losses ($rx + $lost, $transmit)" \
		"$sent" $((rx + lost))
	t_eq "vethA tx_packets" "$rx" "$(d a_tx_packets)"
	t_eq "vethA tx_dropped" "$lost" "$(d a_tx_dropped)"
	has b_rx_queue_0_xdp_packets &&
		t_eq "vethB rx_queue_0_xdp_packets" "$rx" "$(d b_rx_queue_0_xdp_packets)"
	case $transmit in
	live-frames)
		t_eq "attempted (whole test runs) = sent" "$sent" "$(json_num attempted)"
		has a_tx_queue_0_xdp_xmit &&
			t_eq "vethA tx_queue_0_xdp_xmit" "$rx" "$(d a_tx_queue_0_xdp_xmit)" ;;
	packet-socket)
		t_ge "attempted (offered to the socket) >= sent" "$sent" "$(json_num attempted)"
		has a_tx_queue_0_xdp_xmit && t_eq "vethA tx_queue_0_xdp_xmit" 0 "$(d a_tx_queue_0_xdp_xmit)" ;;
	*) t_fail "transmit in gen's JSON: expected live-frames or packet-socket, got '$transmit'" ;;
	esac
	t_eq "steered: redirected" "$rx" "$(d redirected)"
	t_eq "steered: passed" 0 "$(d passed)"
	t_eq "steered: errors" 0 "$(d errors)"
}

load_b drop || t_abort "cpusteer load --remote drop failed: $LOAD_ERR"

t_begin trafficgen_ipv4_udp_delivered
gen_run --duration 1 --flows 100
check_delivered
t_eq "family" 4 "$(json_num family)"
t_eq "frame_size" 64 "$(json_num frame_size)"
command -v python3 >/dev/null &&
	{ python3 -m json.tool "$GEN_JSON" >/dev/null 2>&1 || t_fail "not JSON: $(cat "$GEN_JSON")"; }
t_end

# Same run: 100 source ports hash into buckets of both CPUs.
t_begin trafficgen_flows_spread_over_cpus
t_ge "frames steered to CPU 0" 1 "$(d redirected_cpu0)"
t_ge "frames steered to CPU 1" 1 "$(d redirected_cpu1)"
t_end

# One flow is one source port, one bucket, one CPU: the program really
# rewrites the port per flow, and only per flow.
t_begin trafficgen_one_flow_one_cpu
gen_run --duration 0.3 --flows 1
check_delivered
c0=$(d redirected_cpu0) c1=$(d redirected_cpu1)
[ "$c0" = 0 ] || [ "$c1" = 0 ] || t_fail "one flow reached both CPUs: $c0 and $c1 frames"
t_eq "frames on its CPU" "$(d rx_packets)" $((c0 + c1))
t_end

t_begin trafficgen_ipv6_udp_delivered
gen_run --duration 0.5 --flows 100 --ipv6
check_delivered
t_eq "family" 6 "$(json_num family)"
t_end

t_begin trafficgen_ipv4_tcp_delivered
gen_run --duration 0.5 --flows 100 --tcp
check_delivered
t_end

# IPv6/TCP headers alone are 74 bytes: that is the default size there.
t_begin trafficgen_ipv6_tcp_delivered
gen_run --duration 0.5 --flows 100 --ipv6 --tcp
check_delivered
t_eq "frame_size" 74 "$(json_num frame_size)"
t_end

# Each way of transmitting, asked for by name, whatever this kernel's
# default is: a packet socket works everywhere; live frames are delivered
# where the kernel allows them and refused in one line where it does not.
t_begin trafficgen_packet_socket_delivered
gen_run --duration 0.5 --flows 100 --transmit packet-socket
check_delivered
t_eq "transmit" packet-socket "$(json_str transmit)"
t_ge "frames steered to CPU 0" 1 "$(d redirected_cpu0)"
t_ge "frames steered to CPU 1" 1 "$(d redirected_cpu1)"
t_end

t_begin trafficgen_live_frames_delivered_or_refused
gen_run --duration 0.5 --flows 100 --transmit live-frames
if [ "$GEN_RC" = 0 ]; then
	check_delivered
	t_eq "transmit" live-frames "$(json_str transmit)"
else
	t_eq "stderr lines of the refusal" 1 "$(wc -l <"$GEN_ERR")"
	grep -q "refuses XDP live-frames test runs" "$GEN_ERR" ||
		t_fail "refusal does not say live frames are refused: $(head -1 "$GEN_ERR")"
	t_eq "stdout of the refusal" "" "$(cat "$GEN_JSON")"
	t_eq "frames that reached vethB" 0 "$(d rx_packets)"
	# The default then falls back, and says so once.
	gen_run --duration 0.3 --flows 100
	check_delivered
	t_eq "transmit of the default" packet-socket "$(json_str transmit)"
	t_eq "notes on stderr" 1 "$(grep -c "note: this kernel refuses XDP live-frames" "$GEN_ERR")"
fi
t_end

# SIGINT ends a long run early with a report; a test run the signal cut
# short counts in sent but not in attempted, so only sent is compared.
t_begin trafficgen_stops_on_sigint
snapshot "$NETNS_TMP/before"
bg_a "$CPUSTEER_BENCH" gen "$VA" --json --dst-mac "$MAC_B" --duration 120 >"$GEN_JSON" 2>"$GEN_ERR"
wait_until 60 catches_sigint "$BG_PID" || t_fail "cpusteer-bench gen installed no SIGINT handler within 60 s"
sleep 1
kill -INT "$BG_PID"
wait "$BG_PID"
GEN_RC=$?
sleep 0.5
snapshot "$NETNS_TMP/after"
if [ "$GEN_RC" != 0 ]; then
	t_fail "cpusteer-bench gen exited with $GEN_RC after SIGINT: $(head -1 "$GEN_ERR")"
else
	secs=$(json_num seconds)
	awk -v s="$secs" 'BEGIN { exit !(s > 0 && s < 60) }' ||
		t_fail "seconds: expected the run cut well short of 120, got '$secs'"
	t_eq "sent = steering rx_packets + vethA's losses" "$(json_num sent)" \
		$(($(d rx_packets) + $(transmit_losses)))
fi
t_end

# With --remote pass the frames reach B's stack, which verifies every L4
# checksum (a frame from a cpumap carries no checksum state) before it
# finds no socket. IPv4/UDP frames carry none (0), so only the IP header
# checksum is tested there.
t_begin trafficgen_checksums_valid
load_b pass || t_fail "cpusteer load --remote pass failed: $LOAD_ERR"
if ! ip -n "$NSB" addr add 10.201.0.2/24 dev "$VB" ||
	! ip -n "$NSB" addr add fd21::2/64 dev "$VB" nodad; then
	t_fail "cannot add the generator's addresses to $VB"
fi
for mode in "udp4 UdpNoPorts UdpInCsumErrors" "udp6 Udp6NoPorts Udp6InCsumErrors --ipv6" \
	"tcp4 TcpOutRsts TcpInCsumErrors --tcp" "tcp6 TcpOutRsts TcpInCsumErrors --ipv6 --tcp"; do
	# shellcheck disable=SC2086
	set -- $mode
	name=$1 good=$2 bad=$3
	shift 3
	good0=$(nstat_b "$good") bad0=$(nstat_b "$bad") hdr0=$(nstat_b IpInHdrErrors)
	gen_run --duration 0.3 --flows 50 "$@"
	[ "$GEN_RC" = 0 ] || t_fail "$name: cpusteer-bench gen exited with $GEN_RC: $(head -1 "$GEN_ERR")"
	t_ge "$name: $good (frames B's stack accepted)" 1 $(($(nstat_b "$good") - good0))
	t_eq "$name: $bad" 0 $(($(nstat_b "$bad") - bad0))
	t_eq "$name: IpInHdrErrors" 0 $(($(nstat_b IpInHdrErrors) - hdr0))
done
t_end

# --elephants 4 --elephant-share 60 of 100 flows: frame n of the
# generator's count goes to elephant (n % 100) % 4 when n % 100 < 60, else
# to the next mouse in turn. The counts per flow are then known exactly
# from "sent", and a receiver that counts frames by source port must see
# each of them, short only of what vethA failed to transmit (those are
# counted, not placed, so only their total is compared).
t_begin trafficgen_elephants_share
if ! command -v python3 >/dev/null; then
	t_skip "needs python3 to read the counts"
else
	cs unload "$VB" >/dev/null 2>&1
	if ! ip -n "$NSB" link set dev "$VB" xdpdrv obj "$SPORT_OBJ" sec xdp; then
		t_fail "cannot attach $SPORT_OBJ to $VB"
	fi
	veth_counters >"$NETNS_TMP/before"
	in_a "$CPUSTEER_BENCH" gen "$VA" --json --dst-mac "$MAC_B" --duration 1 --flows 100 \
		--elephants 4 --elephant-share 60 >"$GEN_JSON" 2>"$GEN_ERR"
	GEN_RC=$?
	sleep 0.5
	veth_counters >"$NETNS_TMP/after"
	[ "$GEN_RC" = 0 ] || t_fail "cpusteer-bench gen exited with $GEN_RC: $(head -1 "$GEN_ERR")"
	t_eq "elephants in gen's JSON" 4 "$(json_num elephants)"
	t_eq "elephant_share in gen's JSON" 60 "$(json_num elephant_share)"
	sport_counts >"$NETNS_TMP/sports"
	out=$(python3 - "$NETNS_TMP/sports" "$(json_num sent)" "$(transmit_losses)" <<'PY'
import sys
counts = dict(map(int, line.split()) for line in open(sys.argv[1]))
sent, lost = int(sys.argv[2]), int(sys.argv[3])
flows, elephants, share = 100, 4, 60
cycles, rest = divmod(sent, 100)
mice = cycles * (100 - share) + max(0, rest - share)
want = {}
for flow in range(elephants):
    slots = range(flow, share, elephants)
    want[flow] = cycles * len(slots) + sum(s < rest for s in slots)
for j in range(flows - elephants):
    want[elephants + j] = mice // (flows - elephants) + (j < mice % (flows - elephants))
over = [(1024 + f, counts.get(f, 0), w) for f, w in want.items() if counts.get(f, 0) > w]
if over:
    print("flows (port, received, at most) above their share:", over[:5])
short = sum(w - counts.get(f, 0) for f, w in want.items())
if short != lost:
    print("frames missing from the flows: %d, vethA's losses: %d" % (short, lost))
others = sum(n for f, n in counts.items() if f not in want)
if others:
    print("%d frames from other source ports" % others)
got = sum(counts.get(f, 0) for f in range(elephants))
total = sum(counts.get(f, 0) for f in want)
if not total or abs(got / total - share / 100) > 0.001:
    print("elephants carried %d of %d frames, not %d%%" % (got, total, share))
PY
)
	[ -z "$out" ] || while read -r line; do t_fail "$line"; done <<<"$out"
	ip -n "$NSB" link set dev "$VB" xdpdrv off
fi
t_end

# Each refusal: non-zero exit, one line on stderr, nothing on stdout.
t_begin trafficgen_bad_input
for args in "nosuch$$" "$VA --size 10" "$VA --flows 0" "$VA --ipv6 --tcp --size 64" \
	"$VA --size 3000" "$VA --dst-mac 02:00:00" "$VA --duration 0" "$VA --cpu 4096" "$VA --bogus" \
	"$VA --elephants 0" "$VA --elephants 65" "$VA --flows 4 --elephants 4" \
	"$VA --elephant-share 50" "$VA --elephants 2 --elephant-share 100" "$VA --transmit bogus"; do
	# shellcheck disable=SC2086
	in_a "$CPUSTEER_BENCH" gen $args --duration 0.1 >"$NETNS_TMP/bad.out" 2>"$NETNS_TMP/bad.err"
	rc=$?
	[ "$rc" != 0 ] || t_fail "gen $args: exited 0"
	t_eq "gen $args: stderr lines" 1 "$(wc -l <"$NETNS_TMP/bad.err")"
	t_eq "gen $args: stdout" "" "$(cat "$NETNS_TMP/bad.out")"
done
t_end
t_exit
