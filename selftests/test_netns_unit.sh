#!/usr/bin/env bash
# The systemd unit dist/cpusteer@.service.in, its commands run as systemd
# runs them for vethB (%I the interface, the tree's binary, the test's
# configuration folder):
# - start (ExecStartPre, ExecStart), reload and stop (ExecStopPost) leave
#   the device as it was before;
# - a start killed halfway (SIGKILL at the load's last bpf call, the one
#   that records it ready: attached, device changed, record still saying
#   "loading") is cleaned up by what systemd runs after any start,
#   ExecStopPost: no program, no pins, the device as before;
# - a start after such a killed start (systemd itself killed before its
#   ExecStopPost) undoes what it left, then loads;
# - an instance loaded by hand is left alone by the start, whose load then
#   refuses it with one line;
# - unload --stranded with nothing there says nothing and exits 0.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         the unit's commands for vethB
#
# Not in kernel runs: the order of the unit's commands and what they leave, the same on every kernel; load and unload themselves are test_netns_unload's there (3 s on the host, 3 min under emulation)
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_netns.sh"

loaded_state() {
	echo "prog $(xdp_prog_id)"
	[ -d "$PINS" ] && echo "pins $(ls "$PINS" | wc -l)" || echo "no pins"
	device_state_b
}

# The unit's command for ACTION (StartPre, Start, Reload, StopPost) as
# systemd would run it for vethB.
unit_command() {	# ACTION
	sed -n "s/^Exec$1=//p" "$NETNS_TOP/dist/cpusteer@.service.in" |
		sed -e "s|@SBINDIR@/cpusteer|$CPUSTEER|" -e "s|@SYSCONFDIR@|$NETNS_TMP/etc|" \
		    -e "s|%I|$VB|g"
}

# Runs the unit's ACTION in B; its output goes to $NETNS_TMP/out and err.
unit() {	# ACTION
	local cmd

	cmd=$(unit_command "$1")
	[ -n "$cmd" ] || { echo "the unit has no Exec$1" >"$NETNS_TMP/err"; return 99; }
	# shellcheck disable=SC2086 # the unit's words
	in_b $cmd >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
}

health() {
	cs status "$VB" --json 2>/dev/null | jq -r '.instances[0].health // "none"'
}

# A start that systemd saw killed: the load dies at its last bpf call,
# the write of the record that says "ready".
killed_start() {
	local cmd calls

	cmd=$(unit_command Start)
	# shellcheck disable=SC2086
	calls=$(in_b strace -f -qq -e trace=bpf -o /dev/stdout $cmd 2>/dev/null | grep -c '^[0-9 ]*bpf(')
	# shellcheck disable=SC2086
	in_b $(unit_command StopPost) >/dev/null 2>&1
	# shellcheck disable=SC2086
	in_b strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGKILL:when="$calls" \
		$cmd >/dev/null 2>&1
	t_eq "status after the killed start" interrupted_load "$(health)"
}

setup_device() {
	mkdir -p "$NETNS_TMP/etc/cpusteer"
	printf '%s\n' "cpus = 1" "qsize = 128" "gro = off" >"$NETNS_TMP/etc/cpusteer/$VB.conf"
	chmod 600 "$NETNS_TMP/etc/cpusteer/$VB.conf"
	in_b ethtool -K "$VB" gro on
	BEFORE=$(loaded_state)
}

test_start_reload_stop() {
	unit StartPre || t_fail "start-pre failed: $(cat "$NETNS_TMP/err")"
	unit Start || { t_fail "start failed: $(cat "$NETNS_TMP/err")"; return; }
	t_eq "after start: gro" "gro off" "$(device_state_b | grep '^gro ')"
	printf '%s\n' "cpus = 0" "qsize = 128" "gro = off" >"$NETNS_TMP/etc/cpusteer/$VB.conf"
	unit Reload || t_fail "reload failed: $(cat "$NETNS_TMP/err")"
	t_eq "after reload" "0" "$(cs status "$VB" --json | jq -r '.instances[0].cpus | map(.cpu) | join(",")')"
	unit StopPost || t_fail "stop failed: $(cat "$NETNS_TMP/err")"
	t_eq "after stop: no program, no pins, the device as before" "$BEFORE" "$(loaded_state)"
}

test_stop_post_cleans_a_killed_start() {
	killed_start
	unit StopPost || t_fail "stop-post after a killed start failed: $(cat "$NETNS_TMP/err")"
	t_eq "after stop-post: no program, no pins, the device as before" "$BEFORE" "$(loaded_state)"
}

test_start_after_killed_start() {
	killed_start
	unit StartPre || t_fail "start-pre failed: $(cat "$NETNS_TMP/err")"
	unit Start || t_fail "start after a killed start failed: $(cat "$NETNS_TMP/err")"
	t_eq "status after the new start" ok "$(health)"
	unit StopPost || t_fail "stop failed: $(cat "$NETNS_TMP/err")"
	t_eq "after stop: no program, no pins, the device as before" "$BEFORE" "$(loaded_state)"
}

test_start_leaves_hand_loaded_instance() {
	local during

	cs load "$VB" --cpus 0 >/dev/null || { t_fail "load by hand failed"; return; }
	during=$(loaded_state)
	unit StartPre
	t_eq "start-pre: status and output" "0 " "$? $(cat "$NETNS_TMP/out" "$NETNS_TMP/err")"
	unit Start
	t_eq "start: status and lines on stderr" "1 1" "$? $(wc -l <"$NETNS_TMP/err")"
	grep -q "already loaded" "$NETNS_TMP/err" || t_fail "start: $(cat "$NETNS_TMP/err")"
	t_eq "the instance loaded by hand" "$during" "$(loaded_state)"
	cs unload "$VB" >/dev/null || t_fail "unload failed"
}

test_unload_stranded_without_instance() {
	cs unload "$VB" --stranded >"$NETNS_TMP/out" 2>&1
	t_eq "unload --stranded with nothing there: status and output" "0 " \
		"$? $(cat "$NETNS_TMP/out")"
}

all_tests() {
	t_run netns_unit_start_reload_stop test_start_reload_stop
	t_run netns_unit_stop_post_cleans_a_killed_start test_stop_post_cleans_a_killed_start
	t_run netns_unit_start_after_killed_start test_start_after_killed_start
	t_run netns_unit_start_leaves_hand_loaded_instance test_start_leaves_hand_loaded_instance
	t_run netns_unit_unload_stranded_without_instance test_unload_stranded_without_instance
}

t_plan_of all_tests
command -v strace >/dev/null || t_skip_all "needs strace, to kill a load at a chosen system call"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
setup_device
all_tests
t_exit
