#!/usr/bin/env bash
# The second stage (--remote), the program the cpumap runs on the target
# CPU: "drop" drops every steered datagram and counts each one, "pass"
# hands every one to the stack and counts each one.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   (no IPv6: nothing else leaves A)      cpusteer load --remote drop|pass,
#                                         or load drop + set --remote pass
#   udp_flows send: 8 flows x 25          cpumap -> cpusteer_remote_* -> stack
#                                         udp_flows recv, 8 sockets
#
# Static neighbour entries and no IPv6 on vethA: the only frames vethB sees
# are the datagrams, so the remote counters must equal what was sent. Then
# a redirect second stage whose device is deleted under it.
set -u
. "$(dirname "$0")/lib_netns.sh"

FLOWS=8
ROUNDS=25
K=$((FLOWS * ROUNDS))

t_plan netns_remote_drop netns_remote_pass netns_remote_set_drop_to_pass \
	netns_remote_redirect_target_deleted_set_goes_on
netns_setup v4only || t_abort "setup: $NETNS_WHY"

# Loads with --remote MODE (or, given SET-FROM, loads with that and then
# switches with `cpusteer set --remote MODE`), sends K datagrams, and leaves
# the receiver's report in $NETNS_TMP/MODE.recv and the counters in
# $NETNS_TMP/MODE.c.
send_through() {	# MODE [SET-FROM]
	local mode=$1 from=${2:-} rx=$NETNS_TMP/$1.recv out

	if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --remote "${from:-$mode}" 2>&1); then
		t_fail "cpusteer load --remote ${from:-$mode} failed: $out"
		return 1
	fi
	if [ -n "$from" ] && ! out=$(cs set "$VB" --remote "$mode" 2>&1); then
		t_fail "cpusteer set --remote $mode failed: $out"
		cs unload "$VB" >/dev/null 2>&1
		return 1
	fi
	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --expect $K --max 20000 >"$rx"
	if ! wait_ready "$rx"; then
		t_fail "the receiver in B did not start"
		return 1
	fi
	# shellcheck disable=SC2086
	SENT=$(in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count $ROUNDS)
	# Whatever is still queued arrives well within this; then stop the
	# receiver, which may be waiting for datagrams that were dropped.
	sleep 0.5
	kill "$BG_PID" 2>/dev/null
	wait "$BG_PID"
	read_counters "$NETNS_TMP/$mode.c"
	out=$(cs unload "$VB" 2>&1) || t_fail "cpusteer unload failed: $out"
}

t_begin netns_remote_drop
if send_through drop; then
	c=$NETNS_TMP/drop.c
	t_eq "sender" "sent $K failed 0" "$SENT"
	t_eq "datagrams received in B" "total 0" "$(grep '^total' "$NETNS_TMP/drop.recv")"
	t_eq "remote_counters dropped" $K "$(field "$c" remote_dropped)"
	t_eq "remote_counters passed" 0 "$(field "$c" remote_passed)"
	t_eq "steering program: redirected" $K "$(field "$c" redirected)"
fi
t_end

t_begin netns_remote_pass
if send_through pass; then
	c=$NETNS_TMP/pass.c
	t_eq "sender" "sent $K failed 0" "$SENT"
	t_eq "datagrams received in B" "total $K" "$(grep '^total' "$NETNS_TMP/pass.recv")"
	t_eq "remote_counters passed" $K "$(field "$c" remote_passed)"
	t_eq "remote_counters dropped" 0 "$(field "$c" remote_dropped)"
	t_eq "steering program: redirected" $K "$(field "$c" redirected)"
fi
t_end

# The second stage changes on a running instance: the cpumap entries are
# rewritten with the new program, the steering program stays attached.
t_begin netns_remote_set_drop_to_pass
rm -f "$NETNS_TMP/pass.recv" "$NETNS_TMP/pass.c"
if send_through pass drop; then
	c=$NETNS_TMP/pass.c
	t_eq "sender" "sent $K failed 0" "$SENT"
	t_eq "datagrams received in B" "total $K" "$(grep '^total' "$NETNS_TMP/pass.recv")"
	t_eq "remote_counters passed" $K "$(field "$c" remote_passed)"
	t_eq "remote_counters dropped" 0 "$(field "$c" remote_dropped)"
fi
t_end

# The device --remote redirect:DEV sends to is deleted (the kernel empties
# its devmap slot): a later set that leaves the second stage as it is
# goes on, with one line saying the target is gone, and status reports it;
# --remote to a new device puts it right. Recreating the device under its
# name is not enough: the instance names the device, by index.
t_begin netns_remote_redirect_target_deleted_set_goes_on
tx=rt$$
health() { cs status "$VB" --json | jq -r '.instances[0] | "\(.phase) \(.health)"'; }
if ! ip -n "$NSB" link add "$tx" type veth peer name "ru$$" || ! ip -n "$NSB" link set "$tx" up; then
	t_fail "cannot make the target $tx"
elif ! out=$(cs load "$VB" --cpus 0-1 --bucket-stats --remote "redirect:$tx" 2>&1); then
	t_fail "load --remote redirect:$tx failed: $out"
else
	ip -n "$NSB" link del "$tx"
	cs set "$VB" --cpus 0 >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
	t_eq "set --cpus 0 after the target went: status and lines on stderr" "0 1" \
		"$? $(wc -l <"$NETNS_TMP/err")"
	grep -q "redirect target of $VB (ifindex [0-9]*) is gone" "$NETNS_TMP/err" ||
		t_fail "set's line: $(cat "$NETNS_TMP/err")"
	t_eq "status" "ready redirect_target_gone" "$(health)"
	cs set "$VB" --cpus 0-1 >/dev/null 2>&1 || t_fail "a second set failed"
	out=$(cs balance "$VB" --once --dry-run --interval 0.1 --min-packets 0 2>&1) ||
		t_fail "balance refused: $out"
	ip -n "$NSB" link add "$tx" type veth peer name "ru$$" && ip -n "$NSB" link set "$tx" up
	t_eq "status with a new $tx" "ready redirect_target_gone" "$(health)"
	out=$(cs set "$VB" --remote "redirect:$tx" 2>&1) || t_fail "set --remote redirect:$tx failed: $out"
	t_eq "status after set --remote" "ready ok" "$(health)"
	out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
	ip -n "$NSB" link del "$tx" 2>/dev/null
fi
t_end
t_exit
