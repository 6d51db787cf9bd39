#!/usr/bin/env bash
# --kthread-sched: the kernel thread of every cpumap entry of the
# instance is scheduled as given, at load and whenever a set makes new
# threads (new CPUs, entries written again for a new queue size), and
# keeps it through a set that does not name it; a bad value is one line,
# exit 2, nothing changed; a set this process may not make (no
# CAP_SYS_NICE) is refused before anything moves; status, its JSON and
# the exporter show each CPU's thread.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         cpusteer load --cpus 0-1
#                                         cpumap/0/map:ID  cpumap/1/map:ID
#
# The threads are found here by their whole name in /proc/PID/comm and
# read back with chrt and ps, not with cpusteer's own code.
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_netns.sh"

# The cpumap's id, from its pin.
cpumap_id() {
	bpftool -j map show pinned "$PINS/cpu_map" 2>/dev/null | jq -r .id
}

# "CPU PID" of each kthread of the instance's cpumap, by CPU.
threads() {
	local id f name

	id=$(cpumap_id)
	for f in /proc/[0-9]*/comm; do
		{ read -r name <"$f"; } 2>/dev/null || continue	# ended meanwhile
		[[ $name =~ ^cpumap/([0-9]+)/map:$id$ ]] || continue
		f=${f#/proc/}
		echo "${BASH_REMATCH[1]} ${f%/comm}"
	done | sort -n
}

# Whether the instance has exactly N threads: a rewritten entry's old
# thread ends a moment after the set.
has_threads() {	# N
	[ "$(threads | wc -l)" = "$1" ]
}

# "POLICY PRIORITY" of PID as chrt says them ("SCHED_FIFO 20").
chrt_of() {	# PID
	chrt -p "$1" | awk -F': ' '/policy/ { p = $2 } /priority/ { print p, $2 }'
}

# Every thread of the instance on CPUS (N of them) is scheduled as WANT
# ("SCHED_FIFO 20"), as chrt reads it.
check_threads() {	# N WANT
	local cpu pid

	wait_until 5 has_threads "$1" || t_fail "$1 threads expected: $(threads | tr '\n' ',')"
	while read -r cpu pid; do
		t_eq "thread of CPU $cpu (pid $pid)" "$2" "$(chrt_of "$pid")"
	done < <(threads)
}

# What a refused command must leave as it was: the record's bytes, and
# each thread with its pid, policy and priority.
snapshot() {
	local cpu pid

	bpftool -j map lookup pinned "$PINS/instance_state" key 0 0 0 0 | jq -c .value
	while read -r cpu pid; do
		echo "$cpu $pid $(chrt_of "$pid")"
	done < <(threads)
}

run_cs() {
	OUT=$(cs "$@" 2>"$NETNS_TMP/err")
	RC=$?
	ERR=$(<"$NETNS_TMP/err")
}

test_default_leaves_threads_alone() {
	run_cs load "$VB" --cpus 0-1
	t_eq "load exit status" 0 "$RC"
	check_threads 2 "SCHED_OTHER 0"
	run_cs status "$VB"
	t_eq "status says it is not set" "kthread sched      not set: as the kernel made them" \
		"$(grep -o 'kthread sched .*' <<<"$OUT")"
	run_cs status "$VB" --json
	t_eq "status --json kthread_sched" null "$(jq -r '.instances[0].kthread_sched' <<<"$OUT")"
	run_cs unload "$VB"
	t_eq "unload exit status" 0 "$RC"
}

test_load_schedules_every_thread() {
	run_cs load "$VB" --cpus 0-1 --kthread-sched fifo:20
	t_eq "load exit status" 0 "$RC"
	[[ $OUT == *", kthreads fifo:20"* ]] || t_fail "load does not say it: $OUT"
	check_threads 2 "SCHED_FIFO 20"
}

test_set_schedules_new_threads() {
	local before after

	run_cs set "$VB" --cpus 1
	t_eq "set --cpus 1" 0 "$RC"
	check_threads 1 "SCHED_FIFO 20"
	before=$(threads)
	run_cs set "$VB" --cpus 0
	t_eq "set --cpus 0" 0 "$RC"
	check_threads 1 "SCHED_FIFO 20"
	t_eq "CPU of the thread after set --cpus 0" 0 "$(threads | awk '{ print $1 }')"
	run_cs set "$VB" --cpus 0-1
	t_eq "set --cpus 0-1" 0 "$RC"
	check_threads 2 "SCHED_FIFO 20"
	before=$(threads | awk '{ print $2 }' | sort)
	# A new queue size writes every entry again: new threads.
	run_cs set "$VB" --qsize 1024
	t_eq "set --qsize 1024" 0 "$RC"
	check_threads 2 "SCHED_FIFO 20"
	after=$(threads | awk '{ print $2 }' | sort)
	t_eq "threads kept through set --qsize" "" "$(comm -12 <(echo "$before") <(echo "$after"))"
}

test_set_without_it_keeps_it() {
	local before

	before=$(threads)
	run_cs set "$VB" --weights 2,1 --buckets 1024
	t_eq "set --weights --buckets" 0 "$RC"
	t_eq "threads" "$before" "$(threads)"
	check_threads 2 "SCHED_FIFO 20"
	run_cs status "$VB" --json
	t_eq "recorded" fifo:20 "$(jq -r '.instances[0].kthread_sched' <<<"$OUT")"
	run_cs set "$VB" --kthread-sched rr:5
	t_eq "set --kthread-sched rr:5" 0 "$RC"
	check_threads 2 "SCHED_RR 5"
	run_cs set "$VB" --kthread-sched other:-5
	t_eq "set --kthread-sched other:-5" 0 "$RC"
	check_threads 2 "SCHED_OTHER 0"
	t_eq "nice of the threads" "-5 -5" \
		"$(threads | while read -r _ pid; do ps -o ni= -p "$pid"; done | tr -d ' ' | paste -sd' ')"
	run_cs status "$VB" --json
	t_eq "priorities shown under other: the nice values" "-5 -5" \
		"$(jq -r '[.instances[0].cpus[].kthread.priority] | join(" ")' <<<"$OUT")"
	run_cs set "$VB" --kthread-sched fifo:20
	t_eq "set --kthread-sched fifo:20" 0 "$RC"
	check_threads 2 "SCHED_FIFO 20"
}

test_bad_values_change_nothing() {
	local before value

	before=$(snapshot)
	for value in fifo:0 fifo:100 rr other:30 bogus; do
		run_cs set "$VB" --kthread-sched "$value"
		t_eq "set --kthread-sched $value: exit status" 2 "$RC"
		t_eq "set --kthread-sched $value: stderr lines" 1 "$(grep -c . <<<"$ERR")"
		[[ $ERR == *"bad --kthread-sched '$value'"* ]] ||
			t_fail "set --kthread-sched $value: the line does not name it: $ERR"
		run_cs load "$VB" --cpus 0-1 --kthread-sched "$value"
		t_eq "load --kthread-sched $value: exit status" 2 "$RC"
	done
	t_eq "record and threads" "$before" "$(snapshot)"
}

# Without CAP_SYS_NICE, a set that would make new threads is refused
# before anything moves: the record, the threads and their pids as they
# were.
test_refused_without_cap_sys_nice() {
	local before err

	command -v setpriv >/dev/null || { t_skip "needs setpriv, to drop CAP_SYS_NICE"; return; }
	before=$(snapshot)
	err=$(in_b setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice \
		"$CPUSTEER" set "$VB" --qsize 2048 2>&1 >/dev/null)
	t_eq "exit status" 1 "$?"
	t_eq "stderr lines" 1 "$(grep -c . <<<"$err")"
	[[ $err == *"cpumap kthread cpumap/"*"/map:$(cpumap_id) (pid "*") as fifo:20: "*"lacks CAP_SYS_NICE"* ]] ||
		t_fail "the line does not name the thread and what is missing: $err"
	t_eq "record and threads" "$before" "$(snapshot)"
	run_cs status "$VB" --json
	t_eq "phase" ready "$(jq -r '.instances[0].phase' <<<"$OUT")"
	# A set that makes no thread needs nothing more.
	err=$(in_b setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice \
		"$CPUSTEER" set "$VB" --weights 1,1 2>&1 >/dev/null)
	t_eq "set --weights without CAP_SYS_NICE: exit status" 0 "$?"
}

test_status_and_exporter_show_threads() {
	local cpu pid f=$NETNS_TMP/metrics cookie text json

	run_cs status "$VB"
	text=$OUT
	t_eq "status: the setting" "kthread sched      fifo:20" \
		"$(grep -o 'kthread sched .*' <<<"$text")"
	run_cs status "$VB" --json
	json=$OUT
	t_eq "status --json: the setting" fifo:20 "$(jq -r '.instances[0].kthread_sched' <<<"$json")"
	cs exporter --once >"$f"
	cookie=$(in_b "$TOOLS/netns_cookie")
	while read -r cpu pid; do
		t_eq "status --json: thread of CPU $cpu" "$pid fifo 20" \
			"$(jq -r ".instances[0].cpus[] | select(.cpu == $cpu) | .kthread |
				\"\\(.pid) \\(.policy) \\(.priority)\"" <<<"$json")"
		grep -Eq "^ +$cpu +[0-9]+ +[0-9]+ +$pid +fifo +20\$" <<<"$text" ||
			t_fail "status: no row 'CPU $cpu ... $pid fifo 20' in: $(grep -A3 ' cpus ' <<<"$text")"
		t_eq "exporter: pid of CPU $cpu" "$pid" "$(awk -v s="cpusteer_cpumap_thread_pid{interface=\"$VB\",netns=\"$cookie\",cpu=\"$cpu\",policy=\"fifo\"}" '$1 == s { print $2 }' "$f")"
		t_eq "exporter: priority of CPU $cpu" 20 "$(awk -v s="cpusteer_cpumap_thread_priority{interface=\"$VB\",netns=\"$cookie\",cpu=\"$cpu\",policy=\"fifo\"}" '$1 == s { print $2 }' "$f")"
	done < <(threads)
}

all_tests() {
	t_run netns_kthread_sched_default_leaves_threads_alone test_default_leaves_threads_alone
	t_run netns_kthread_sched_load_schedules_every_thread test_load_schedules_every_thread
	t_run netns_kthread_sched_set_schedules_new_threads test_set_schedules_new_threads
	t_run netns_kthread_sched_set_without_it_keeps_it test_set_without_it_keeps_it
	t_run netns_kthread_sched_bad_values_change_nothing test_bad_values_change_nothing
	t_run netns_kthread_sched_refused_without_cap_sys_nice test_refused_without_cap_sys_nice
	t_run netns_kthread_sched_status_and_exporter_show_threads test_status_and_exporter_show_threads
}

t_plan_of all_tests
netns_require 2 "the sets move threads between CPUs 0 and 1" chrt bpftool jq
netns_setup v4only || t_abort "setup: $NETNS_WHY"
all_tests
t_exit
