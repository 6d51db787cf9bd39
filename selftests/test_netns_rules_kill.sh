#!/usr/bin/env bash
# A change of the prefix rules killed at any bpf(2) call (strace fault
# injection, SIGKILL at the Nth call) leaves the rules all or nothing:
# what `cpusteer rule IFACE` lists, the copy in force that packets read,
# is the set from before the command or the set it was making, never a
# mix. A kill after the record said "setting" is the one state with a
# step left: status names `cpusteer set IFACE`, and that set puts the
# new rules in force. Either way the next change works, so nothing a
# killed command left (a half-filled copy not in force) is in its way.
#
# Three changes, each killed at every bpf call it makes:
#  - --replace of two IPv4 rules by three rules of other kinds (IPv6 and
#    a source rule among them): the copy not in force is filled, then
#    the configuration moves to it, then the old copy is emptied;
#  - --add of the first IPv6 rule: the configuration first looks up the
#    new kind, then the rule goes in place; killed between the two, the
#    kind is looked up and finds nothing, which is the old rules;
#  - --del of the last rule: out in place, then no kind is looked up.
#
#   netns csB<pid>: vethB<pid>, cpusteer load --cpus 0-1 --rules OLD
#
# Not in kernel runs: what it kills is the loader's order of steps, the same on every kernel; test_netns_rules and test_steer_rules hold the kernel's side there (14 s on the host, 6 minutes under emulation)
set -u
. "$(dirname "$0")/lib_netns.sh"

REPLACE=rules_replace_killed_at_each_bpf_call_is_all_or_nothing
ADD=rules_add_of_a_new_kind_killed_at_each_bpf_call_is_all_or_nothing
DEL=rules_last_del_killed_at_each_bpf_call_is_all_or_nothing

t_plan $REPLACE $ADD $DEL
strace_injects || t_skip_all "no strace that can inject faults"
netns_require 2 "the rules name CPUs 0 and 1"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
T=$NETNS_TMP

printf 'dst 10.1.0.0/16 1\ndst 10.2.0.0/16 0\n' >"$T/old"
printf 'dst 10.3.0.0/24 0\ndst 2001:db8::/32 1\nsrc 10.1.0.0/16 1\n' >"$T/new"
printf 'dst 10.1.0.0/16 1\n' >"$T/one"
: >"$T/none"
chmod 644 "$T/old" "$T/new" "$T/one" "$T/none"
out=$(cs load "$VB" --cpus 0-1 --rules "$T/old" 2>&1) || t_abort "cpusteer load failed: $out"
t_on_exit cs unload "$VB"

rules() { cs rule "$VB" 2>&1; }

# The list each file makes, as `rule` prints it.
listed() {	# FILE
	cs rule "$VB" --replace "$1" >/dev/null 2>&1 || return 1
	rules
}
LIST_OLD=$(listed "$T/old") || t_abort "cannot put the old rules in force"
LIST_NEW=$(listed "$T/new") || t_abort "cannot put the new rules in force"
LIST_ONE=$(listed "$T/one") || t_abort "cannot put one rule in force"
LIST_ADDED=$(printf '%s\n%s' "$LIST_ONE" "dst 2001:db8::/32 1")

# Phase of the record, as status reports it.
phase() { cs status "$VB" --json 2>/dev/null | jq -r '.instances[0].phase'; }

# After a round killed at call K: the list is BEFORE or AFTER; a record
# left in phase setting is finished by `cpusteer set`, which status names,
# and the list is then AFTER, or, for an add killed before its rule went
# in, BEFORE. Sets GOT: which one it was (before, after).
check_round() {	# WHAT BEFORE AFTER
	local w=$1 before=$2 after=$3 now problem

	now=$(rules)
	if [ "$(phase)" = setting ]; then
		problem=$(cs status "$VB" --json 2>/dev/null | jq -r '.instances[0].problem')
		[[ $problem == *"cpusteer set $VB"* ]] ||
			t_fail "$w: status should name 'cpusteer set $VB', said '$problem'"
		cs set "$VB" >/dev/null 2>"$T/set.err" ||
			t_fail "$w: the set that finishes failed: $(head -c 300 "$T/set.err")"
		now=$(rules)
		SETTING=$((SETTING + 1))
	fi
	[ "$(phase)" = ready ] || t_fail "$w: phase $(phase) after the round, not ready"
	if [ "$now" = "$before" ]; then
		GOT=before
	elif [ "$now" = "$after" ]; then
		GOT=after
	else
		GOT=mixed
		t_fail "$w: the rules are neither the old nor the new set: $(tr '\n' ';' <<<"$now")"
	fi
}

# Every call of `rule ARGS` killed in turn, from the state FILE makes.
kill_rounds() {	# WHAT FILE BEFORE AFTER ARGS...
	local w=$1 file=$2 before=$3 after=$4 n k
	local -A got=()

	shift 4
	cs rule "$VB" --replace "$file" >/dev/null || t_fail "$w: cannot start from $file"
	n=$(count_calls_in_b bpf rule "$VB" "$@")
	SETTING=0
	for k in $(seq 1 "$n"); do
		cs rule "$VB" --replace "$file" >/dev/null 2>&1 || {
			t_fail "$w: call $k: the next change after the round before it failed"
			break
		}
		strace_kill_in_b bpf "$k" rule "$VB" "$@"
		[ "$KILLED" = 1 ] || continue
		check_round "$w: killed at bpf call $k of $n" "$before" "$after"
		got[$GOT]=$((${got[$GOT]:-0} + 1))
	done
	echo "# $w: $n bpf calls: left the old rules ${got[before]:-0} times, the new ${got[after]:-0}; $SETTING in phase setting, finished by set"
	# An add's last call is its rule's update, which a kill stops: only
	# the rounds through phase setting show that the change was reached.
	[ "${got[after]:-0}" -gt 0 ] || [ "$SETTING" -gt 0 ] ||
		t_fail "$w: no kill left the new rules or a set to finish: the rounds did not reach the change"
}

t_begin $REPLACE
kill_rounds "replace" "$T/old" "$LIST_OLD" "$LIST_NEW" --replace "$T/new"
t_end

t_begin $ADD
kill_rounds "add" "$T/one" "$LIST_ONE" "$LIST_ADDED" --add "dst 2001:db8::/32 1"
t_end

t_begin $DEL
kill_rounds "del" "$T/one" "$LIST_ONE" "" --del "dst 10.1.0.0/16"
t_end

t_exit
