# shellcheck shell=bash
# Shared by the network namespace tests (selftests/test_netns_*.sh): the
# topology, running commands on either side, reading cpusteer's maps.
# Source it, t_plan the tests, call netns_setup, then run the tests.
#
#   netns csA<pid>                              netns csB<pid>
#   +-------------------------------+           +-------------------------------+
#   | vethA<pid>                    |           | vethB<pid>                    |
#   |   10.200.0.1/24  fd20::1/64   |<--veth--->|   10.200.0.2/24  fd20::2/64   |
#   |   tx checksumming off         |           |   cpusteer_steer (XDP)        |
#   | senders: udp_flows, iperf3 -c |           |   -> cpumap -> CPU 0 or 1     |
#   +-------------------------------+           | receivers: udp_flows, iperf3  |
#                                               +-------------------------------+
#
# Traffic A->B is ordinary stack traffic. The XDP program on vethB turns on
# its NAPI; each frame is steered through the cpumap and reaches B's stack
# on the CPU that owns its flow. vethA sends with tx checksumming off: a
# frame that crossed a cpumap has lost its "checksum offloaded" state, and
# B's stack would drop it as a checksum error.
#
# cpusteer runs in B through `nsenter --net` only, so that its pins land on
# the host's bpffs (`ip netns exec` remounts /sys and hides it). Reads of
# B's own sysfs go through `ip netns exec`.
#
# Reporting is lib.sh's (t_plan, t_begin, t_end, ...); this file only
# adds the fixtures. netns_cleanup is registered with t_on_exit before
# anything is built, so a failing test, an `exit` in the middle or a
# signal removes the namespaces, the veth pair, the pins, the background
# commands and the scratch directory.

# shellcheck source=selftests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
NETNS_TOP=$TU_TOP
TOOLS=${TOOLS:-$NETNS_TOP/build/selftests/tools}
NSA=csA$$
NSB=csB$$
VA=vethA$$
VB=vethB$$
IPA=10.200.0.1
IPB=10.200.0.2
IP6A=fd20::1
IP6B=fd20::2
PINS=			# the instance's pin folder, set by netns_setup
KEY1=000102030405060708090a0b0c0d0e0f
KEY2=f0e1d2c3b4a5968778695a4b3c2d1e0f
NETNS_TMP=
_bg_pids=()

# --- running things -------------------------------------------------------

in_a() { nsenter --net="/run/netns/$NSA" "$@"; }
in_b() { nsenter --net="/run/netns/$NSB" "$@"; }
cs() { in_b "$CPUSTEER" "$@"; }		# cpusteer in B, host bpffs
b_sysfs() { ip netns exec "$NSB" cat "/sys/class/net/$VB/$1" 2>&1; }	# B's own sysfs

# Start a command in netns A or B in the background and remember it for
# teardown. $BG_PID is the command's own PID: nsenter execs it.
bg_a() {
	nsenter --net="/run/netns/$NSA" "$@" &
	BG_PID=$!
	_bg_pids+=("$BG_PID")
}

bg_b() {
	nsenter --net="/run/netns/$NSB" "$@" &
	BG_PID=$!
	_bg_pids+=("$BG_PID")
}

# Whether signal number SIGNAL is in process PID's signal set FIELD of
# /proc/PID/status (SigBlk blocked, SigCgt caught), a hex mask whose bit
# N-1 is signal N.
signal_in_set() {	# PID FIELD SIGNAL
	local mask

	mask=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$mask" ] && (((16#$mask >> ($3 - 1)) & 1))
}

# Whether process PID has its own SIGINT handler by now. A
# non-interactive shell starts background jobs with SIGINT ignored, so a
# signal sent before the handler is installed is lost: under emulation a
# process can take seconds to get there.
catches_sigint() {	# PID
	signal_in_set "$1" SigCgt 2
}

# Waits until FILE has a line "ready" (a udp_flows receiver bound all its
# sockets), at most 5 s.
wait_ready() {	# FILE
	local i

	for i in $(seq 50); do
		grep -qx ready "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# The flows A -> B for udp_flows: flow i is sport+i -> dport+i.
FLOWS_V4="--src $IPA --dst $IPB --sport 30000 --dport 20000"
FLOWS_V6="--src $IP6A --dst $IP6B --sport 31000 --dport 21000"
udp_flows() { "$TOOLS/udp_flows" "$@"; }

# Sends PER flows' datagrams A -> B (udp_flows send FLOW-ARGS) to a
# receiver in B that writes its per-flow report to RX; checks that all
# were sent and received. Returns 1 when the receiver did not start.
exchange_flows() {	# RX FLOW-ARGS FLOWS PER
	local rx=$1 flows=$2 n=$3 per=$4 sent

	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $flows --flows "$n" --expect $((n * per)) --max 10000 >"$rx"
	if ! wait_ready "$rx"; then
		t_fail "the receiver in B did not start"
		return 1
	fi
	# shellcheck disable=SC2086
	sent=$(in_a "$TOOLS/udp_flows" send $flows --flows "$n" --count "$per")
	wait "$BG_PID"
	t_eq "sender" "sent $((n * per)) failed 0" "$sent"
	t_eq "datagrams received" "total $((n * per))" "$(grep '^total' "$rx")"
}

# The CPU classify predicts, with KEY1 over CPUs 0-1, for each of the N
# flows of FLOW-ARGS sent bare: what wraps a datagram (tags, a PPPoE
# session, labels) never enters the hash. "sport dport cpu" lines, sorted.
predict_bare_flows() {	# WANT FLOW-ARGS N
	# shellcheck disable=SC2086
	udp_flows pcap $2 --flows "$3" --out "$1.pcap"
	"$CPUSTEER" classify "$1.pcap" --cpus 0-1 --key "$KEY1" --json |
		jq -r '.packets[] | "\(.flow.sport) \(.flow.dport) \(.cpu)"' | sort >"$1"
}

# The CPU each flow reached, from udp_flows recv's output RX, as
# predict_bare_flows writes its lines.
received_flows() {	# RX GOT
	awk '$1 == "flow" { print $4, $6, $NF }' "$1" | sort >"$2"
}

# Compares, flow by flow, the CPU classify predicted (WANT) with the CPU
# that received the flow (GOT), both "sport dport cpu" lines: every flow
# must be in both, on the same CPU, and the flows must have landed on
# both CPUs, or the comparison proves little.
check_flows_placed() {	# WANT GOT FLOWS
	local want=$1 got=$2 flows=$3 mismatches cpus

	t_eq "flows classified" "$flows" "$(wc -l <"$want")"
	mismatches=$(join -j1 <(awk '{ print $1 ":" $2, $3 }' "$want") \
		<(awk '{ print $1 ":" $2, $3 }' "$got") | awk '$2 != $3' | head -5)
	if [ -n "$mismatches" ]; then
		t_fail "flows on another CPU than classify predicts (flow, predicted, observed):"
		while read -r line; do t_fail "  $line"; done <<<"$mismatches"
	fi
	t_eq "flows compared" "$flows" "$(join -j1 <(awk '{ print $1 ":" $2 }' "$want") \
		<(awk '{ print $1 ":" $2 }' "$got") | wc -l)"
	cpus=$(awk '{ print $3 }' "$got" | sort -u | tr '\n' ' ')
	t_eq "CPUs the flows landed on" "0 1 " "$cpus"
}

# "name value" lines of a file -> the value of NAME (empty when absent).
field() {	# FILE NAME
	awk -v k="$2" '$1 == k { print $2; found = 1 } END { if (!found) print "" }' "$1"
}

# The counters of the instance on vethB, summed over CPUs, into FILE.
read_counters() {	# FILE
	"$TOOLS/steer_maps" counters "$PINS" >"$1"
}

# The counters in FILE (read_counters) reconcile: every frame the program
# received was redirected, passed or counted as an error, once.
t_counters_reconcile() {	# FILE
	local rx redirected passed errors

	rx=$(field "$1" rx_packets)
	redirected=$(field "$1" redirected)
	passed=$(field "$1" passed)
	errors=$(field "$1" errors)
	t_eq "rx_packets = redirected + passed + errors ($redirected + $passed + $errors)" \
		"$rx" "$((redirected + passed + errors))"
}

# Waits until the instance on vethB has counted N frames more than FROM,
# at most 60 s, and prints the count it reached. A test's step waits for
# traffic to have arrived, not for a time: guests under emulation run ten
# times slower than the host.
wait_counted() {	# FROM N
	local c=0

	for _ in $(seq 600); do
		c=$("$TOOLS/steer_maps" counters "$PINS" | awk '$1 == "rx_packets" { print $2 }')
		[ "${c:-0}" -ge $(($1 + $2)) ] && break
		sleep 0.1
	done
	echo "${c:-0}"
	[ "${c:-0}" -ge $(($1 + $2)) ]
}

# An SNMP counter of B's network namespace (nstat -a: absolute).
nstat_b() {	# NAME
	in_b nstat -az "$1" | awk -v k="$1" '$1 == k { print $2 }'
}

# COMMAND must fail with exactly one line on stderr, matching the glob
# PATTERN; WHAT names the command in a failure.
t_refused() {	# WHAT PATTERN COMMAND...
	local what=$1 pattern=$2 err

	shift 2
	err=$("$@" 2>&1 >/dev/null) && t_fail "$what: accepted"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || t_fail "$what: more than one line: $err"
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $err == $pattern ]] || t_fail "$what: the refusal does not say '$pattern': $err"
}

# The id of the XDP program on vethB (or IFACE in B), empty when none.
xdp_prog_id() {	# [IFACE]
	ip -n "$NSB" -d link show "${1:-$VB}" 2>/dev/null |
		sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'
}

# vethB as B sees it, one "what value" line each: GRO, the distinct settings of its NAPI
# instances (ids left out: a veth makes new ones when GRO or XDP comes and
# goes) and the sysfs NAPI files. Few processes: this runs a lot. Without
# the netdev netlink family (before Linux 6.3) napi_show has nothing to
# say, and its complaint would repeat on every call: the sysfs lines
# carry the settings there.
device_state_b() {
	# shellcheck disable=SC2016
	ip netns exec "$NSB" sh -c '{ ethtool -k "$0"; "$1" "$0" 2>/dev/null; } | awk '\''
		$1 == "generic-receive-offload:" { print "gro", $2 }
		$1 == "napi" { $2 = ""; if (!seen[$0]++) print }'\''
		for f in gro_flush_timeout napi_defer_hard_irqs threaded; do
			read -r v <"/sys/class/net/$0/$f" || v=unreadable
			echo "sysfs_$f $v"
		done' "$VB" "$TOOLS/napi_show"
}

# The id `xdp-loader status` lists for program NAME in FILE (its output):
# the first number after the name, on the program's own line alone
#   "vethB  NAME  native  ID  TAG"
# and in a dispatcher's list
#   "vethB  xdp_dispatcher  native  ID  TAG", then "=>  PRIO  NAME  ID  TAG  ACTIONS".
xdp_loader_listed_id() {	# NAME FILE
	awk -v name="$1" '{
		for (i = 1; i < NF; i++) if ($i == name) {
			for (j = i + 1; j <= NF; j++) if ($j ~ /^[0-9]+$/) { print $j; exit }
		} }' "$2"
}

# The id of cpusteer's own program on IFACE in netns NS, as libxdp lists
# it: the interface's program when cpusteer is attached alone, its
# extension when it sits in libxdp's dispatcher (the interface then shows
# the dispatcher's id, and cpusteer names its own). nsenter, not ip netns
# exec: that mounts a fresh /sys, without the bpffs where libxdp keeps the
# dispatcher's pins, and xdp-loader then lists no extension.
steer_prog_id_in() {	# NS IFACE
	nsenter --net="/run/netns/$1" xdp-loader status "$2" 2>/dev/null |
		xdp_loader_listed_id cpusteer_steer -
}

# --- topology ---------------------------------------------------------------

# Stops a background command: TERM first, so it can end cleanly. A child
# signalled between fork and exec can lose the TERM to the shell's handler
# it still carries and then run its command regardless: send TERM again
# until it has exited, and KILL after 3 s.
bg_stop() {	# PID
	local i

	for i in $(seq 30); do
		kill "$1" 2>/dev/null || break
		# Exited, not yet waited for.
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ] && break
		[ "$i" = 30 ] && kill -KILL "$1" 2>/dev/null
		sleep 0.1
	done
	wait "$1" 2>/dev/null
}

# Runs COMMAND every 0.1 s until it succeeds, for SECONDS at most.
wait_until() {	# SECONDS COMMAND [ARGS...]
	local tries=$(($1 * 10))

	shift
	until "$@"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Whether another process holds an exclusive lock on FOLDER, as a
# command that changes the instance in it does.
lock_held() {	# FOLDER
	! flock -n -s "$1" true
}

exited() {	# PID
	! kill -0 "$1" 2>/dev/null
}

# Signals PID, a command the test started in the background, and waits
# up to SECONDS (5) for it to exit: one that does not fails the test and
# is killed. Its exit status in $RC.
stop_wait() {	# PID SIGNAL [SECONDS]
	kill "-$2" "$1" 2>/dev/null
	if ! wait_until "${3:-5}" exited "$1"; then
		t_fail "still running ${3:-5} s after SIG$2"
		kill -KILL "$1"
	fi
	wait "$1"
	RC=$?
}

netns_cleanup() {
	local p

	for p in "${_bg_pids[@]}"; do
		bg_stop "$p"
	done
	if [ -d "$PINS" ]; then
		if [ -e "/run/netns/$NSB" ] && [ -x "$CPUSTEER" ]; then
			cs unload "$VB" >/dev/null 2>&1
		fi
		# What unload could not remove; pins are plain files to unlink.
		[ -d "$PINS" ] && rm -rf "$PINS"
		rmdir "$(dirname "$PINS")" /sys/fs/bpf/cpusteer 2>/dev/null
	fi
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	[ -n "$NETNS_TMP" ] && rm -rf "$NETNS_TMP"
}

# Skips every test unless the machine has CPUS online CPUs (WHY says
# what for) and each TOOL.
netns_require() {	# CPUS WHY TOOL...
	local t

	[ "$(nproc)" -ge "$1" ] || t_skip_all "needs $1 CPUs: $2"
	shift 2
	for t in "$@"; do
		command -v "$t" >/dev/null || t_skip_all "needs $t"
	done
}

# Builds the topology drawn at the top. With "v4only", vethA has no IPv6:
# no router solicitation or MLD report leaves A, so with the static
# neighbours every frame B sees is one the test sent.
netns_setup() {	# [v4only]
	local v4only=${1:-} t mac_a mac_b

	t_on_exit netns_cleanup
	if [ "$(id -u)" != 0 ]; then
		NETNS_WHY="needs root"
		return 1
	fi
	for t in "$CPUSTEER" "$CPUSTEER_BENCH" "$TOOLS/udp_flows" "$TOOLS/steer_maps" "$TOOLS/napi_show" \
		"$TOOLS/netns_cookie"; do
		if [ ! -x "$t" ]; then
			NETNS_WHY="$t is not built (run make)"
			return 1
		fi
	done
	for t in jq ethtool nstat nsenter; do
		if ! command -v $t >/dev/null; then
			NETNS_WHY="needs $t"
			return 1
		fi
	done
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	NETNS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpusteer-netns.$$.XXXXXX") || return 1
	NETNS_WHY="cannot build the topology"
	ip netns add "$NSA" || return 1
	ip netns add "$NSB" || return 1
	# Pins live per network namespace, in a folder named by its cookie.
	PINS=/sys/fs/bpf/cpusteer/ns$(in_b "$TOOLS/netns_cookie")/$VB || return 1
	ip link add "$VA" netns "$NSA" type veth peer name "$VB" netns "$NSB" || return 1
	if [ "$v4only" = v4only ]; then
		ip netns exec "$NSA" sysctl -qw "net.ipv6.conf.$VA.disable_ipv6=1" || return 1
	else
		ip -n "$NSA" addr add "$IP6A/64" dev "$VA" nodad || return 1
		ip -n "$NSB" addr add "$IP6B/64" dev "$VB" nodad || return 1
	fi
	ip -n "$NSA" addr add "$IPA/24" dev "$VA" || return 1
	ip -n "$NSB" addr add "$IPB/24" dev "$VB" || return 1
	in_a ethtool -K "$VA" tx off >/dev/null || return 1
	ip -n "$NSA" link set lo up && ip -n "$NSB" link set lo up || return 1
	ip -n "$NSA" link set "$VA" up && ip -n "$NSB" link set "$VB" up || return 1
	# Static neighbours: no ARP or neighbour discovery runs during a test,
	# so the frames B counts are the ones the test sent.
	mac_a=$(ip -n "$NSA" link show "$VA" | awk '/link\/ether/ { print $2 }')
	mac_b=$(ip -n "$NSB" link show "$VB" | awk '/link\/ether/ { print $2 }')
	ip -n "$NSA" neigh replace "$IPB" lladdr "$mac_b" dev "$VA" nud permanent || return 1
	ip -n "$NSB" neigh replace "$IPA" lladdr "$mac_a" dev "$VB" nud permanent || return 1
	if [ "$v4only" != v4only ]; then
		ip -n "$NSA" neigh replace "$IP6B" lladdr "$mac_b" dev "$VA" nud permanent || return 1
		ip -n "$NSB" neigh replace "$IP6A" lladdr "$mac_a" dev "$VB" nud permanent || return 1
	fi
	NETNS_WHY=
}

# --- strace fault injection: a command killed at a fixed point ----------------

# Whether strace is here and can inject faults.
strace_injects() {
	command -v strace >/dev/null &&
		strace -f -o /dev/null -e inject=getpid:error=EPERM:when=1 true 2>/dev/null
}

# Runs cpusteer ARGS in B under strace, SIGKILLed at the Nth call of
# SYSCALL, its output in $NETNS_TMP/out and err. Sets KILLED: 1 when the
# call was reached.
strace_kill_in_b() {	# SYSCALL N ARGS...
	local sc=$1 n=$2

	shift 2
	{ strace -f -o "$NETNS_TMP/strace" -e trace="$sc" -e inject="$sc:signal=KILL:when=$n" \
		nsenter --net="/run/netns/$NSB" "$CPUSTEER" "$@" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"; } \
		2>/dev/null
	KILLED=0
	grep -q 'killed by SIGKILL' "$NETNS_TMP/strace" && KILLED=1
}

# How many times cpusteer ARGS in B calls SYSCALL, run to its end.
count_calls_in_b() {	# SYSCALL ARGS...
	local sc=$1

	shift
	strace -f -o "$NETNS_TMP/count" -e trace="$sc" \
		nsenter --net="/run/netns/$NSB" "$CPUSTEER" "$@" >/dev/null 2>&1
	grep -c " $sc(" "$NETNS_TMP/count"
}
