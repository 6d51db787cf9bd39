#!/usr/bin/env bash
# cpusteer stats: its options and errors, its JSON, that the figures of
# every stage add up once traffic stops, and its table: scrolling, without
# a terminal escape, into a pipe; redrawn in place on a terminal, with the
# busiest CPUs first and a line for those left out when the window is too
# short.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   no IPv6, static neighbours            cpusteer load --cpus 0-1
#   udp_flows send: 32 flows x 100        cpusteer stats vethB<pid> --json
#
# With IPv6 off on vethA and static neighbours, every frame vethB sees is
# one the test sent, so the totals can be compared exactly. Nothing in B
# listens on the ports; the datagrams are dropped by B's stack after the
# cpumap, which is all the stages need.
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
# shellcheck source=selftests/lib_netns.sh
. "$(dirname "$0")/lib_netns.sh"

TESTS=(stats_help stats_bad_options stats_not_loaded stats_json_lines
	stats_rx_adds_up stats_stages_agree stats_table stats_signal_detaches
	stats_from_another_netns_says_where stats_redirect_errors
	stats_terminal_redraws_in_place stats_short_terminal_busiest_cpus_first)
FLOWS=32
PER_FLOW=100
SENT=$((FLOWS * PER_FLOW))

t_plan "${TESTS[@]}"
for cmd in stats load unload; do
	if [ -x "$CPUSTEER" ] && ! "$CPUSTEER" --help | grep -q "^  $cmd "; then
		t_skip_all "this cpusteer has no $cmd command"
	fi
done
command -v jq >/dev/null || t_skip_all "jq is not installed"
netns_setup v4only || t_abort "setup: $NETNS_WHY"

# Runs cpusteer in B; stdout, stderr and the exit status land in
# $OUT, $ERR and $RC.
run_cs() {
	cs "$@" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
	RC=$?
	OUT=$(cat "$NETNS_TMP/out")
	ERR=$(cat "$NETNS_TMP/err")
}

# Lines of a string; none for an empty one.
lines() {
	if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi
}

# Waits until FILE has at least N lines, at most 10 s.
wait_lines() {	# FILE N
	for _ in $(seq 100); do
		[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# Starts `stats --json` in B, sends SENT datagrams once its first block is
# out, and stops it two blocks after the sender is done, so the last
# totals are final however long the sending took (minutes under
# emulation). The last JSON line goes to FILE.
stats_during_traffic() {	# FILE
	local all=$NETNS_TMP/stats.json rx=$NETNS_TMP/recv stats sent n

	bg_b "$CPUSTEER" stats "$VB" --json --interval 1 >"$all" 2>"$NETNS_TMP/stats.err"
	stats=$BG_PID
	# A receiver, so that B answers no datagram with "port unreachable",
	# which would make the connected sender's next send fail.
	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --expect $SENT \
		--max 8000 >"$rx"
	if ! wait_ready "$rx" || ! wait_lines "$all" 1; then
		t_fail "the receiver or stats did not start"
		return 1
	fi
	# shellcheck disable=SC2086
	sent=$(in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count $PER_FLOW)
	t_eq "sender" "sent $SENT failed 0" "$sent"
	n=$(wc -l <"$all")
	wait_lines "$all" $((n + 2)) || t_fail "stats wrote no two blocks after the traffic"
	kill -INT "$stats"
	wait "$stats"
	t_eq "stats exit status after SIGINT" 0 "$?"
	tail -n 1 "$all" >"$1"
}

# A figure from a JSON file.
jn() {	# FILE FILTER
	jq -r "$2" "$1" 2>/dev/null
}

test_help() {
	run_cs stats --help
	t_eq "exit status" 0 "$RC"
	t_eq "first line" "usage: cpusteer stats IFACE [OPTIONS]" \
		"$(head -n 1 <<<"$OUT")"
}

test_bad_options() {
	local args

	for args in "--interval 0" "--interval 1.5" "--count 0" "--count many"; do
		# shellcheck disable=SC2086
		run_cs stats "$VB" $args
		t_ne "exit status of stats $args" 0 "$RC"
		t_eq "stderr lines of stats $args" 1 "$(lines "$ERR")"
	done
	run_cs stats
	t_eq "exit status without an interface" 2 "$RC"
}

test_not_loaded() {
	local out rc

	out=$(in_a "$CPUSTEER" stats "$VA" --count 1 2>"$NETNS_TMP/err")
	rc=$?
	t_ne "exit status" 0 "$rc"
	t_eq "stdout" "" "$out"
	t_eq "stderr lines" 1 "$(lines "$(cat "$NETNS_TMP/err")")"
}

test_json_lines() {
	local line n=0

	run_cs stats "$VB" --json --count 2 --interval 1
	t_eq "exit status" 0 "$RC"
	t_eq "lines" 2 "$(lines "$OUT")"
	while IFS= read -r line; do
		n=$((n + 1))
		t_eq "keys of line $n" \
			'["enqueue","exceptions","hash","interface","interval_s","kthread","redirect_errors","redirect_per_target","remote","rx","time","totals","tracepoints"]' \
			"$(jq -c 'keys' <<<"$line" 2>&1)"
		t_eq "hash of line $n" multilinear "$(jq -r '.hash' <<<"$line" 2>&1)"
		t_eq "rx.per_cpu entries of line $n" 2 "$(jq '.rx.per_cpu | length' <<<"$line" 2>&1)"
		t_eq "tracepoints of line $n" \
			'["xdp_cpumap_enqueue","xdp_cpumap_kthread","xdp_exception","xdp_redirect_err"]' \
			"$(jq -c '.tracepoints | keys' <<<"$line" 2>&1)"
	done <<<"$OUT"
}

# Leaves the last block of a run with traffic in $LAST for the next test.
test_rx_adds_up() {
	local rx

	stats_during_traffic "$LAST" || return
	rx=$(jn "$LAST" .totals.rx)
	t_eq "frames seen (totals.rx)" "$SENT" "$rx"
	t_eq "rx = redirect + pass + error" "$rx" "$(jn "$LAST" '.totals | .redirect + .pass + .error')"
	t_eq "redirect = sum over totals.redirect_per_target" "$(jn "$LAST" .totals.redirect)" \
		"$(jn "$LAST" '[.totals.redirect_per_target[].packets] | add')"
	# Both CPUs own some of 32 flows.
	t_eq "targets that received frames" 2 \
		"$(jn "$LAST" '[.totals.redirect_per_target[] | select(.packets > 0)] | length')"
}

test_stages_agree() {
	if [ ! -s "$LAST" ]; then
		t_fail "no totals from stats_rx_adds_up"
		return
	fi
	if [ "$(jn "$LAST" '.tracepoints.xdp_cpumap_enqueue and .tracepoints.xdp_cpumap_kthread')" != true ]; then
		t_skip "the kernel lacks the cpumap tracepoints"
		return
	fi
	t_eq "redirect errors" 0 "$(jn "$LAST" .totals.redirect_errors)"
	t_eq "frames enqueued = frames redirected" "$(jn "$LAST" .totals.redirect)" \
		"$(jn "$LAST" .totals.enqueue.processed)"
	t_eq "kthread processed = enqueued - queue drops" \
		"$(jn "$LAST" '.totals.enqueue.processed - .totals.enqueue.drops')" \
		"$(jn "$LAST" .totals.kthread.processed)"
	t_ge "source -> target pairs in .enqueue" 1 "$(jn "$LAST" '.enqueue | length')"
	t_eq "exceptions" 0 "$(jn "$LAST" '[.totals.exceptions[]] | add')"
}

test_table() {
	local section

	run_cs stats "$VB" --count 1 --extended
	t_eq "exit status" 0 "$RC"
	t_eq "stderr" "" "$ERR"
	for section in RECEIVE PASSED "ERRORS (passed)" "REDIRECTED TO" "ENQUEUE (cpumap)" \
		KTHREAD "SECOND STAGE" "XDP ERRORS"; do
		grep -q "^$section " <<<"$OUT" || t_fail "no $section section in --extended output"
	done
	grep -q $'\033' <<<"$OUT" && t_fail "a terminal escape in the output to a pipe"
	t_eq "blocks to a pipe (blank lines)" 2 \
		"$(cs stats "$VB" --count 2 2>/dev/null | grep -c '^$')"
}

# stats --count N under a pseudo-terminal ROWS high and 200 wide, in B,
# while traffic flows; what it wrote lands in $PTY_OUT, its blocks in
# $FRAMES_DIR/1, 2, ..., without the terminal's \r, the cursor moves up
# before each and the ESC[K that ends each line.
stats_in_pty() {	# ROWS N
	rm -rf "$FRAMES_DIR" && mkdir -p "$FRAMES_DIR"
	in_b "$NETNS_TOP/selftests/tools/pty_run.py" "$1" 200 "$CPUSTEER" stats "$VB" \
		--count "$2" >"$PTY_OUT" 2>&1
	RC=$?
	# Each block ends with ESC[J (clear what is below).
	sed 's/\r//g; s/\x1b\[K//g; s/\x1b\[[0-9]*A//g' "$PTY_OUT" |
		awk -v dir="$FRAMES_DIR" 'BEGIN { RS = "\033\\[J" } NF { printf "%s", $0 > (dir "/" NR) }'
}

# The cursor moves up (ESC[NA) in what stats wrote, their Ns by commas.
cursor_moves_up() {
	grep -oaE $'\033\\[[0-9]+A' "$PTY_OUT" | tr -dc '0-9\n' | paste -sd,
}

# Traffic sent from CPU 1, for a minute at most, until stop_traffic: veth
# runs the receiving NAPI on the sender's CPU, so CPU 1 receives every
# frame besides its share of the steered ones, and is the busier of the
# two.
traffic_from_cpu1() {
	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --max 65000 >/dev/null
	RECEIVER=$BG_PID
	# shellcheck disable=SC2086
	bg_a taskset -c 1 "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --seconds 60 \
		--gap 100 >/dev/null
	SENDER=$BG_PID
	sleep 1
}

stop_traffic() {
	kill -TERM "$SENDER" "$RECEIVER" 2>/dev/null
	wait "$SENDER" "$RECEIVER" 2>/dev/null
}

# The rows CPU N has in block FILE.
cpu_rows() {	# FILE N
	grep -cE "^  (to )?cpu $2 " "$1"
}

# Block N of the last stats_in_pty, or a failure that shows what came.
frame_or_fail() {	# N
	[ -s "$FRAMES_DIR/$1" ] && return 0
	t_fail "no block $1 ending in ESC[J in: $(head -c 400 "$PTY_OUT" | cat -v)"
	return 1
}

test_terminal() {
	local frame=$FRAMES_DIR/2

	traffic_from_cpu1
	stats_in_pty 100 3
	stop_traffic
	t_eq "exit status" 0 "$RC"
	t_eq "blocks that clear what is below them (ESC[J)" 3 "$(grep -o $'\033\\[J' "$PTY_OUT" | wc -l)"
	frame_or_fail 2 || return
	# Block 1 follows whatever came before it (a note on stderr).
	t_eq "cursor moves up before blocks 2 and 3" 2 "$(cursor_moves_up | tr ',' '\n' | wc -l)"
	t_eq "cursor moves up before block 3, over block 2" "$(wc -l <"$frame")" \
		"$(cursor_moves_up | cut -d, -f2)"
	t_eq "windows cleared (ESC[H)" 0 "$(grep -c $'\033\\[H' "$PTY_OUT")"
	# A window tall enough: every CPU, in number order, as in a pipe.
	t_ge "rows of cpu 0" 3 "$(cpu_rows "$frame" 0)"
	t_ge "rows of cpu 1" 4 "$(cpu_rows "$frame" 1)"
	t_eq "ENQUEUE rows, in CPU order" "to cpu 0,to cpu 1," \
		"$(grep -oE '^  to cpu [0-9]+' "$frame" | sed 's/^  //' | tr '\n' ',')"
	grep -q "left out" "$frame" && t_fail "a 'left out' line in a window tall enough: $(cat "$frame")"
}

# A window one row shorter than the tall block needs: CPU 0's rows go,
# CPU 1's (the busier) stay, where CPU order would have kept CPU 0's, and
# a last line says one CPU was left out.
test_short_terminal() {
	local rows frame n

	traffic_from_cpu1
	stats_in_pty 100 2
	if ! frame_or_fail 2; then
		stop_traffic
		return
	fi
	rows=$(wc -l <"$FRAMES_DIR/2")
	stats_in_pty "$rows" 3
	stop_traffic
	t_eq "exit status" 0 "$RC"
	for n in 2 3; do
		frame=$FRAMES_DIR/$n
		frame_or_fail "$n" || return
		t_ge "rows of block $n" 1 "$(wc -l <"$frame")"
		[ "$(wc -l <"$frame")" -lt "$rows" ] ||
			t_fail "block $n has $(wc -l <"$frame") lines, the window $rows rows"
		t_eq "rows of cpu 0 in block $n" 0 "$(cpu_rows "$frame" 0)"
		t_ge "rows of cpu 1 in block $n" 4 "$(cpu_rows "$frame" 1)"
		t_eq "last line of block $n" "(1 more CPU left out, the least busy)" \
			"$(grep -v '^$' "$frame" | tail -n 1)"
	done
}

tracing_ids() {
	bpftool -j prog show 2>/dev/null |
		jq -r '.[] | select(.type == "tracing" and (.name | startswith("cpusteer_"))) | .id' |
		sort
}

test_signal_detaches() {
	local before mine left pid

	before=$(tracing_ids)
	# $BG_PID is cpusteer itself, so the signal reaches it.
	bg_b "$CPUSTEER" stats "$VB" >"$NETNS_TMP/sig.out" 2>&1
	pid=$BG_PID
	if ! wait_lines "$NETNS_TMP/sig.out" 1; then
		t_fail "stats printed nothing within 10 s"
		return
	fi
	mine=$(comm -13 <(echo "$before") <(tracing_ids))
	t_ge "tracing programs of the running stats" 1 "$(lines "$mine")"
	stop_wait "$pid" INT
	t_eq "exit status after SIGINT" 0 "$RC"
	# A program goes with its last reference, which can lag a little.
	for _ in $(seq 20); do
		left=$(comm -12 <(echo "$mine") <(tracing_ids))
		[ -z "$left" ] && break
		sleep 0.1
	done
	t_eq "its tracing programs still loaded" "" "$left"
}

# From the host namespace vethB's ifindex means nothing (or another
# device), so the device tracepoints must stay out.
# From a namespace where the instance's interface does not live: refused
# in one line that says where it is and what to run there, which works.
test_other_netns() {
	local hint out

	"$CPUSTEER" stats "$VB" --json --count 1 >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
	t_eq "exit status" 1 "$?"
	t_eq "lines on stderr" 1 "$(wc -l <"$NETNS_TMP/err")"
	t_eq "lines on stdout" 0 "$(wc -l <"$NETNS_TMP/out")"
	hint=$(sed -n 's/.*(\(nsenter [^()]*cpusteer stats [^()]*\))$/\1/p' "$NETNS_TMP/err")
	if [ -z "$hint" ]; then
		t_fail "no '(nsenter ... cpusteer stats ...)' hint in '$(cat "$NETNS_TMP/err")'"
		return
	fi
	grep -q "$NSB" <<<"$hint" || t_fail "the hint '$hint' does not name $NSB"
	out=$(${hint/cpusteer/$CPUSTEER} --json --count 1 2>&1)
	t_eq "the hint's exit status" 0 "$?"
	t_eq "the hint's interface" "$VB" "$(jq -r .interface <<<"$out" 2>&1)"
}

# lo has no ndo_xdp_xmit: every frame the second stage redirects there
# fails in the kernel, which reports it on vethB and drops it.
test_redirect_errors() {
	local out

	cs unload "$VB" >/dev/null 2>&1
	if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --remote redirect:lo 2>&1); then
		t_fail "cpusteer load --remote redirect:lo failed: $out"
		return
	fi
	stats_during_traffic "$LAST" || return
	if [ "$(jn "$LAST" '.tracepoints.xdp_redirect_err and .tracepoints.xdp_cpumap_kthread')" != true ]; then
		t_skip "the kernel lacks xdp_redirect_err or xdp_cpumap_kthread"
		return
	fi
	t_eq "second-stage redirects (remote counters)" "$SENT" "$(jn "$LAST" .totals.remote.redirect)"
	t_eq "redirect errors on vethB" "$SENT" "$(jn "$LAST" .totals.redirect_errors)"
	t_eq "second-stage drops seen by the kthread" "$SENT" "$(jn "$LAST" .totals.kthread.drop)"
}

LAST=$NETNS_TMP/last.json
PTY_OUT=$NETNS_TMP/pty.out
FRAMES_DIR=$NETNS_TMP/frames
t_run stats_help test_help
t_run stats_bad_options test_bad_options
t_run stats_not_loaded test_not_loaded
if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
t_run stats_json_lines test_json_lines
t_run stats_rx_adds_up test_rx_adds_up
t_run stats_stages_agree test_stages_agree
t_run stats_table test_table
t_run stats_signal_detaches test_signal_detaches
t_run stats_from_another_netns_says_where test_other_netns
t_run stats_redirect_errors test_redirect_errors
# The instance as the first tests had it: stats_redirect_errors loaded
# one with a second stage.
cs unload "$VB" >/dev/null 2>&1
if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
t_run stats_terminal_redraws_in_place test_terminal
t_run stats_short_terminal_busiest_cpus_first test_short_terminal
t_exit
