#!/usr/bin/env bash
# cpusteer exporter on this kernel: what it reads of instances and of the
# cpumap and XDP tracepoints. Counts that agree with the frames sent and
# with stats, device errors counted in another namespace, an instance of
# a third namespace with a name to escape, four tracepoint programs for
# any number of instances, instances that come and go,
# the exporter's programs gone after SIGTERM, and none with
# --no-tracepoints. Its HTTP side, options
# and text file are test_exporter_http.sh's.
#
#   (the topology of lib_exporter.sh, and)
#   netns csC<pid>
#   o"\<pid> ---- op<pid>                 cpusteer load on o"\<pid>: another
#                                         namespace, and a name to escape
#
# The exporter in B reads B's instance from its own namespace and C's
# from C, which it enters. One more runs in the host namespace, which it
# enters B from.
# shellcheck disable=SC2317 # the test functions run through t_run
set -u
# shellcheck source=selftests/lib_exporter.sh
. "$(dirname "$0")/lib_exporter.sh"

FLOWS=32
PER_FLOW=100
SENT=$((FLOWS * PER_FLOW))
NSC=csC$$
# shellcheck disable=SC1003 # the backslash is part of the name
ODD='o"\'$$			# an interface name with a quote and a backslash
# shellcheck disable=SC1003 # the backslashes are the label's
ODD_SHOWN='o\"\\'$$		# its label value as the text spells it
COOKIE_C=''
LC=''				# the label prefix of C's instance

tests() {
	t_run exporter_once_passes_promtool test_once
	t_run exporter_serves_metrics test_serves
	t_run exporter_counts_are_exact test_counts
	t_run exporter_device_errors_from_another_netns test_device_errors
	t_run exporter_other_netns_has_its_label test_other_netns
	t_run exporter_follows_instances_that_come_and_go test_come_and_go
	t_run exporter_sigterm_exits_0_and_detaches test_sigterm
	t_run exporter_no_tracepoints_attaches_none test_no_tracepoints
}

in_c() { nsenter --net="/run/netns/$NSC" "$@"; }

# From B itself: B's instance is the exporter's own namespace's.
test_once() {
	local f=$NETNS_TMP/once.prom

	cs_run exporter --once
	t_eq "exit status" 0 "$RC"
	t_eq "stderr" "" "$ERR"
	printf '%s\n' "$OUT" >"$f"
	check_promtool "$f"
	t_eq "format problems" "" "$(check_blocks "$f")"
	t_ge "families" 20 "$(grep -c '^# TYPE ' "$f")"
	t_eq "info series of vethB" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
	t_eq "vethB present" 1 "$(value "$f" "cpusteer_interface_present{$LB}")"
	t_eq "xdp_exception counted for vethB" 1 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LB,tracepoint=\"xdp_exception\"}")"
	t_eq "buckets of CPU 0 and 1" 512 "$(family_sum "$f" cpusteer_cpu_buckets "$LB")"
	grep -q 'key' "$f" && t_fail "the text says 'key'"
}

test_serves() {
	local f=$NETNS_TMP/first.prom

	start_exporter
	t_eq "status" 200 "$(scrape "$f")"
	check_promtool "$f"
	whole "$f" || t_fail "the exposition is not whole"
	t_eq "info series of vethB" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
}

has_lines() {	# FILE N
	[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ]
}

# The frames sent A -> B, between two scrapes, against the frames sent and
# against stats --json, which runs across the traffic. The exporter's
# tracepoints are attached since it started, so they count deltas too.
test_counts() {
	local before=$NETNS_TMP/before.prom after=$NETNS_TMP/after.prom stats=$NETNS_TMP/stats.json
	local rx=$NETNS_TMP/recv sent pid n rcv red pas err enq drops

	t_eq "scrape before" 200 "$(scrape "$before")"
	bg_b "$CPUSTEER" stats "$VB" --json --interval 1 >"$stats" 2>"$NETNS_TMP/stats.err"
	pid=$BG_PID
	# A receiver, so no datagram is answered "port unreachable".
	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows $FLOWS --expect $SENT --max 8000 >"$rx"
	if ! wait_ready "$rx" || ! wait_until 10 has_lines "$stats" 1; then
		t_fail "the receiver or stats did not start"
		return
	fi
	# shellcheck disable=SC2086
	sent=$(in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count $PER_FLOW)
	t_eq "sender" "sent $SENT failed 0" "$sent"
	n=$(wc -l <"$stats")
	wait_until 10 has_lines "$stats" $((n + 2)) || t_fail "stats wrote no two blocks after the traffic"
	kill -INT "$pid"
	wait "$pid"
	t_eq "scrape after" 200 "$(scrape "$after")"
	tail -n 1 "$stats" >"$stats.last"

	t_eq "frames received since the first scrape" "$SENT" "$(delta received "$before" "$after")"
	t_eq "received, as stats counted it" "$(jq .totals.rx "$stats.last")" \
		"$(delta received "$before" "$after")"
	red=$(delta redirected "$before" "$after")
	enq=$(delta cpumap_enqueued "$before" "$after")
	drops=$(delta cpumap_enqueue_dropped "$before" "$after")
	t_eq "redirected, as stats counted it" "$(jq .totals.redirect "$stats.last")" "$red"
	t_eq "enqueued to the cpumap = redirected" "$red" "$enq"
	t_eq "taken by the kthreads = enqueued - dropped" "$((enq - drops))" \
		"$(delta cpumap_kthread "$before" "$after")"
	rcv=$(family_sum "$after" cpusteer_received_packets_total "$LB")
	red=$(family_sum "$after" cpusteer_redirected_packets_total "$LB")
	pas=$(family_sum "$after" cpusteer_passed_packets_total "$LB")
	err=$(family_sum "$after" cpusteer_error_packets_total "$LB")
	t_eq "received = redirected + passed + errors ($red + $pas + $err)" "$rcv" \
		"$((red + pas + err))"
	for n in 0 1; do
		t_ge "packets redirected to CPU $n" 1 \
			"$(value "$after" "cpusteer_redirected_packets_total{$LB,cpu=\"$n\"}")"
	done
	t_eq "XDP exceptions" 0 "$(family_sum "$after" cpusteer_xdp_exceptions_total "$LB")"
	check_promtool "$after"
}

# vethB's redirect errors and its cpumap queue's drops: a slow machine's
# kthreads may let the queue fill, and a dropped frame never reaches the
# second stage to fail there.
redirect_errors_and_drops() {	# FILE
	echo $(($(value "$1" "cpusteer_xdp_redirect_errors_total{$LB}") +
		$(family_sum "$1" cpusteer_cpumap_enqueue_dropped_packets_total "$LB")))
}

redirect_errors_reach() {	# FILE N
	[ "$(redirect_errors_and_drops "$1")" -ge "$2" ]
}

# The XDP error tracepoints filter by the instance's ifindex and
# namespace: an exporter in the host namespace must enter B to attach
# them. lo has no ndo_xdp_xmit, so every frame the second stage redirects
# there fails on vethB.
test_device_errors() {
	local f=$NETNS_TMP/host.prom out pid base errs drops sent

	cs unload "$VB" >/dev/null 2>&1
	if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --remote redirect:lo 2>&1); then
		t_fail "cpusteer load --remote redirect:lo failed: $out"
		return
	fi
	"$CPUSTEER" exporter --textfile "$f" --interval 0.5 2>"$NETNS_TMP/host.err" &
	pid=$!
	_bg_pids+=("$pid")	# for netns_cleanup, as bg_b does
	wait_until 10 grep -qs "^cpusteer_xdp_redirect_errors_total{$LB}" "$f" ||
		t_fail "no series of vethB in $f within 10 s: $(cat "$NETNS_TMP/host.err")"
	base=$(value "$f" "cpusteer_xdp_redirect_errors_total{$LB}")
	drops=$(family_sum "$f" cpusteer_cpumap_enqueue_dropped_packets_total "$LB")
	t_eq "xdp_redirect_err counted for vethB, seen from the host" 1 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LB,tracepoint=\"xdp_redirect_err\"}")"
	# shellcheck disable=SC2086
	sent=$(in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count $PER_FLOW)
	t_eq "sender" "sent $SENT failed 0" "$sent"
	wait_until 10 redirect_errors_reach "$f" $((base + drops + SENT))
	errs=$(($(value "$f" "cpusteer_xdp_redirect_errors_total{$LB}") - base))
	drops=$(($(family_sum "$f" cpusteer_cpumap_enqueue_dropped_packets_total "$LB") - drops))
	t_eq "redirect errors on vethB + cpumap queue drops ($errs + $drops)" "$SENT" $((errs + drops))
	t_eq "second-stage redirects" "$errs" \
		"$(($(value "$f" "cpusteer_remote_packets_total{$LB,cpu=\"0\",outcome=\"redirect\"}") +
		    $(value "$f" "cpusteer_remote_packets_total{$LB,cpu=\"1\",outcome=\"redirect\"}")))"
	stop_wait "$pid" TERM
	t_eq "exit status after SIGTERM" 0 "$RC"
	t_eq "stderr" "" "$(cat "$NETNS_TMP/host.err")"
}

test_other_netns() {
	local f=$NETNS_TMP/c.prom out

	if ! { ip netns add "$NSC" && ip -n "$NSC" link add "$ODD" type veth peer name "op$$" &&
		ip -n "$NSC" link set "$ODD" up && ip -n "$NSC" link set "op$$" up; }; then
		t_fail "cannot make netns $NSC and its veth pair"
		return
	fi
	COOKIE_C=$(in_c "$TOOLS/netns_cookie")
	if ! out=$(in_c "$CPUSTEER" load "$ODD" --cpus 0-1 --key "$KEY2" 2>&1); then
		t_fail "cpusteer load in $NSC failed: $out"
		return
	fi
	LC="interface=\"$ODD_SHOWN\",netns=\"$COOKIE_C\""
	t_eq "status" 200 "$(scrape "$f")"
	check_promtool "$f"
	t_eq "format problems" "" "$(check_blocks "$f")"
	t_ne "the two namespaces' cookies" "$COOKIE_B" "$COOKIE_C"
	t_eq "info series of the instance in $NSC" 1 "$(grep -c -F "cpusteer_instance_info{$LC," "$f")"
	t_eq "info series of vethB" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
	t_eq "its interface present" 1 "$(value "$f" "cpusteer_interface_present{$LC}")"
	# Judged in C, where its ifindex means its device.
	t_eq "its health" 1 "$(value "$f" "cpusteer_instance_health{$LC,problem=\"ok\"}")"
	t_eq "its program attached" 1 "$(value "$f" "cpusteer_instance_attached{$LC}")"
	# Its device events are told apart by an ifindex of C and C itself.
	t_eq "xdp_exception counted for it" 1 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LC,tracepoint=\"xdp_exception\"}")"
	# One program per tracepoint, whatever the number of instances.
	t_eq "programs the exporter holds, for two instances" 4 "$(programs_of "$EXP_PID" | grep -c .)"
	t_eq "links the exporter holds, for two instances" 4 "$(links_of "$EXP_PID")"
}

# The value of the program_id label of C's instance, or "none".
c_program_id() {	# FILE
	grep -F "cpusteer_instance_info{$LC," "$1" | sed -n 's/.*program_id="\([0-9]*\)".*/\1/p' |
		grep . || echo none
}

test_come_and_go() {
	local f=$NETNS_TMP/cg.prom before out

	if [ -z "$LC" ]; then
		t_fail "no instance in $NSC (exporter_other_netns_has_its_label)"
		return
	fi
	scrape "$f" >/dev/null
	before=$(c_program_id "$f")
	in_c "$CPUSTEER" unload "$ODD" >/dev/null 2>&1 || t_fail "unload in $NSC failed"
	t_eq "status after unload" 200 "$(scrape "$f")"
	t_eq "series of the unloaded instance" 0 "$(grep -c -F "{$LC" "$f")"
	t_eq "vethB's info series" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
	out=$(in_c "$CPUSTEER" load "$ODD" --cpus 0 --key "$KEY2" 2>&1) || t_fail "load again: $out"
	t_eq "status after load" 200 "$(scrape "$f")"
	t_ne "its program after load" "$before" "$(c_program_id "$f")"
	t_eq "its interface present" 1 "$(value "$f" "cpusteer_interface_present{$LC}")"
	# Judged in C, where its ifindex means its device.
	t_eq "its health" 1 "$(value "$f" "cpusteer_instance_health{$LC,problem=\"ok\"}")"
	t_eq "its program attached" 1 "$(value "$f" "cpusteer_instance_attached{$LC}")"

	ip -n "$NSC" link del "op$$" || t_fail "cannot delete the veth pair in $NSC"
	t_eq "status after the interface went" 200 "$(scrape "$f")"
	t_eq "its interface present" 0 "$(value "$f" "cpusteer_interface_present{$LC}")"
	t_eq "xdp_exception counted once the interface went" 0 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LC,tracepoint=\"xdp_exception\"}")"
	ip netns del "$NSC"
	t_eq "status after its namespace went" 200 "$(scrape "$f")"
	t_eq "info series of the instance left by $NSC" 1 \
		"$(grep -c -F "cpusteer_instance_info{$LC," "$f")"
	"$CPUSTEER" unload "$ODD" >/dev/null 2>&1 || t_fail "unload of the instance left by $NSC failed"
	t_eq "status after its unload" 200 "$(scrape "$f")"
	t_eq "series of the unloaded instance" 0 "$(grep -c -F "{$LC" "$f")"
	check_promtool "$f"
	alive
}

# The BPF programs a process holds an fd of (its tracepoints').
programs_of() {	# PID
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u
}

# The BPF links a process holds (its tracepoints' attachments).
links_of() {	# PID
	grep -l '^link_type:' /proc/"$1"/fdinfo/* 2>/dev/null | wc -l
}

loaded_programs() {
	bpftool -j prog show 2>/dev/null | jq -r '.[].id' | sort
}

programs_gone() {	# IDS
	[ -z "$(comm -12 <(echo "$1") <(loaded_programs))" ]
}

test_sigterm() {
	local mine left

	mine=$(programs_of "$EXP_PID")
	t_ge "programs the exporter holds" 1 "$(grep -c . <<<"$mine")"
	stop_wait "$EXP_PID" TERM
	t_eq "exit status after SIGTERM" 0 "$RC"
	t_eq "stderr" "" "$(cat "$NETNS_TMP/exporter.err")"
	# A program goes with its last reference, which can lag a little.
	wait_until 2 programs_gone "$mine"
	left=$(comm -12 <(echo "$mine") <(loaded_programs))
	t_eq "its programs still loaded" "" "$left"
}

# --no-tracepoints: no program held, every tracepoint said to be off,
# and the steering program's counters still there.
test_no_tracepoints() {
	local f=$NETNS_TMP/notp.prom pid port=$((PORT + 2))

	bg_b "$CPUSTEER" exporter --no-tracepoints --listen "127.0.0.1:$port" 2>"$NETNS_TMP/notp.err"
	pid=$BG_PID
	if ! wait_until 10 served "http://127.0.0.1:$port/metrics"; then
		t_fail "nothing served on 127.0.0.1:$port: $(cat "$NETNS_TMP/notp.err")"
		return
	fi
	in_b curl -s -m 20 -o "$f" "http://127.0.0.1:$port/metrics"
	t_eq "programs the exporter holds" "" "$(programs_of "$pid")"
	t_eq "tracepoints counted for vethB" 0 "$(family_sum "$f" cpusteer_tracepoint_attached "$LB")"
	t_ge "vethB's received series" 1 "$(grep -c "^cpusteer_received_packets_total{$LB," "$f")"
	stop_wait "$pid" TERM
	t_eq "exit status after SIGTERM" 0 "$RC"
}

cleanup_c() {
	if [ -e "/run/netns/$NSC" ]; then
		in_c "$CPUSTEER" unload "$ODD" >/dev/null 2>&1
		ip netns del "$NSC"
	fi
	if [ -n "$COOKIE_C" ] && [ -d "/sys/fs/bpf/cpusteer/ns$COOKIE_C" ]; then
		"$CPUSTEER" unload "$ODD" >/dev/null 2>&1
		rm -rf "/sys/fs/bpf/cpusteer/ns$COOKIE_C"
	fi
}

t_plan_of tests
exporter_setup
t_on_exit cleanup_c
tests
t_exit
