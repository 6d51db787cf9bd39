#!/usr/bin/env bash
# Why --kthread-sched exists: a real-time task on a target CPU starves
# that CPU's cpumap kthread, which runs at SCHED_OTHER, and the frames
# steered there are dropped at the cpumap queue; with the kthread above
# the task (--kthread-sched fifo:20) they get through. Side by side in one
# run, the same flood each time:
#
#   netns csA<pid>                              netns csB<pid>
#   vethA<pid> 10.200.0.1 -------------------- vethB<pid> 10.200.0.2
#   udp_flows send, 16 flows, 2 s               cpusteer load --cpus 1 [--kthread-sched fifo:20]
#   (CPU 0)                                     XDP on CPU 0 -> cpumap queue of CPU 1
#                                               CPU 1: a SCHED_FIFO 10 busy loop
#                                               udp_flows recv, cpusteer stats --json (CPU 0)
#
# Every process of the test but the busy loop runs on CPU 0, so that what
# CPU 1 runs is the loop and the kthread. The busy loop is killed whatever
# becomes of the test. The figures (frames sent, steered, dropped at the
# queue, taken from it by the kthread) come from stats --json, the
# cpumap tracepoints of this instance; they are printed as comments. The
# thresholds are wide: this holds a behaviour, not a speed, and the
# machine is shared (the kernel still gives SCHED_OTHER a few percent of
# a CPU that a real-time task holds, so some frames get through even
# starved). The kernel guests (selftests/kernels) have two virtual CPUs,
# so the same holds there: this is the test that shows it on a
# PREEMPT_RT kernel, where operators meet it.
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_netns.sh"

FLOWS=16
FLOOD_S=2
BUSY=			# the busy loop's pid while it runs
FIGURES=		# "sent redirected drops processed" of the last flood
DEFAULT_STATS=		# those of each side
FIFO_STATS=

busy_stop() {
	[ -n "$BUSY" ] || return 0
	# TERM to the timeout around the loop, which passes it on; a KILL
	# would end the timeout alone and leave the loop running.
	kill -TERM "$BUSY" 2>/dev/null
	wait "$BUSY" 2>/dev/null
	BUSY=
}

# A figure of the last stats --json line in FILE.
jn() {	# FILE FILTER
	jq -r "$2" "$1" 2>/dev/null
}

# Waits until FILE has N lines, at most 10 s.
wait_lines() {	# FILE N
	local i

	for i in $(seq 100); do
		[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# Loads cpusteer on vethB steering to CPU 1 (with ARGS), floods it for
# FLOOD_S seconds while a SCHED_FIFO 10 loop holds CPU 1, and sets
# FIGURES to "sent redirected queue-drops kthread-processed". Not in a
# subshell: the busy loop and the background commands must be this
# shell's, for the teardown to stop them.
flood_starved() {	# NAME [LOAD-ARGS...]
	local name=$1 all rx stats sent n out

	shift
	all=$NETNS_TMP/stats.$name.json
	rx=$NETNS_TMP/recv.$name
	if ! out=$(cs load "$VB" --cpus 1 "$@" 2>&1); then
		t_fail "load $*: $out"
		return 1
	fi
	bg_b "$CPUSTEER" stats "$VB" --json --interval 1 >"$all" 2>"$NETNS_TMP/stats.err"
	stats=$BG_PID
	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --max 20000 >"$rx"
	if ! wait_ready "$rx" || ! wait_lines "$all" 1; then
		t_fail "the receiver or stats did not start: $(cat "$NETNS_TMP/stats.err")"
		return 1
	fi
	# The loop also ends on its own, killed by a timeout that runs at
	# SCHED_OTHER on CPU 0: on a PREEMPT_RT 6.1 guest the loop starved
	# RCU's grace-period kthread (15,755 jiffies) and that run of the test
	# never finished.
	timeout -s KILL $((FLOOD_S + 8)) taskset -c 1 chrt -f 10 sh -c 'while :; do :; done' &
	BUSY=$!
	# In the background: a signal's trap then runs at once, not when the
	# flood is over, and stops the busy loop.
	# shellcheck disable=SC2086
	bg_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --seconds $FLOOD_S >"$NETNS_TMP/sent"
	wait "$BG_PID"
	busy_stop
	sent=$(<"$NETNS_TMP/sent")
	n=$(wc -l <"$all")
	wait_lines "$all" $((n + 2)) || t_fail "stats wrote no two blocks after the flood"
	kill -INT "$stats"
	wait "$stats"
	out=$(cs unload "$VB" 2>&1) || t_fail "unload: $out"
	tail -n 1 "$all" >"$all.last"
	if [ "$(jn "$all.last" '.tracepoints.xdp_cpumap_enqueue and .tracepoints.xdp_cpumap_kthread')" != true ]; then
		t_fail "stats counted no cpumap tracepoint"
		return 1
	fi
	FIGURES="$(awk '{ print $2 }' <<<"$sent") $(jn "$all.last" \
		'"\(.totals.redirect) \(.totals.enqueue.drops) \(.totals.kthread.processed)"')"
}

# One side's figures as a comment.
note() {	# NAME "sent redirected drops processed"
	local sent redirected drops processed

	read -r sent redirected drops processed <<<"$2"
	echo "# $1: sent $sent, steered to CPU 1 $redirected, dropped at its queue $drops" \
		"($((100 * drops / (redirected > 0 ? redirected : 1)))%), taken by its kthread $processed"
}

test_default_kthread_is_starved() {
	local sent redirected drops processed

	flood_starved default || return
	DEFAULT_STATS=$FIGURES
	note "default (SCHED_OTHER)" "$DEFAULT_STATS"
	read -r sent redirected drops processed <<<"$DEFAULT_STATS"
	t_ge "frames steered to CPU 1" 10000 "$redirected"
	# Most are dropped at the queue: the kthread runs only in the share
	# of CPU 1 the kernel keeps from real-time tasks.
	t_ge "percent dropped at the queue" 50 "$((100 * drops / (redirected > 0 ? redirected : 1)))"
}

test_fifo_kthread_delivers() {
	local sent redirected drops processed

	flood_starved fifo20 --kthread-sched fifo:20 || return
	FIFO_STATS=$FIGURES
	note "--kthread-sched fifo:20" "$FIFO_STATS"
	read -r sent redirected drops processed <<<"$FIFO_STATS"
	t_ge "frames steered to CPU 1" 10000 "$redirected"
	# The sender floods as fast as it can: the kthread, which takes each
	# frame through the stack, may fall behind it now and then, starved
	# or not (here 81% of 540 thousand frames got through).
	t_ge "percent taken by the kthread" 50 "$((100 * processed / (redirected > 0 ? redirected : 1)))"
	if [ -n "$DEFAULT_STATS" ]; then
		read -r _ default_redirected default_drops _ <<<"$DEFAULT_STATS"
		[ $((200 * drops / (redirected > 0 ? redirected : 1))) -le \
		  $((100 * default_drops / (default_redirected > 0 ? default_redirected : 1))) ] ||
			t_fail "fifo:20 dropped $drops of $redirected at the queue, not half the share of the default's $default_drops of $default_redirected"
	fi
}

all_tests() {
	t_run netns_kthread_starvation_default_kthread_is_starved test_default_kthread_is_starved
	t_run netns_kthread_starvation_fifo_kthread_delivers test_fifo_kthread_delivers
}

t_plan_of all_tests
netns_require 2 "the sender on CPU 0, a real-time busy loop on CPU 1" chrt taskset jq
t_on_exit busy_stop
# Everything this script starts runs on CPU 0, but the busy loop.
taskset -pc 0 $$ >/dev/null || t_abort "cannot move the test to CPU 0"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
all_tests
t_exit
