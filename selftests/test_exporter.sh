#!/usr/bin/env bash
# cpusteer exporter: its options, the HTTP side, counts that agree with the
# frames sent and with stats, instances of other network namespaces,
# instances that come and go, concurrent scrapes, and the text file.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   no IPv6, static neighbours            cpusteer load --cpus 0-1
#   udp_flows send: 32 flows x 100        cpusteer exporter (127.0.0.1:9435 of B)
#                                         curl http://127.0.0.1:9435/metrics
#   netns csC<pid>
#   o"\<pid> ---- op<pid>                 cpusteer load on o"\<pid>: another
#                                         namespace, and a name to escape
#
# The exporter runs in B, so its port is B's own; it reads B's instance
# from its own namespace and C's from C, which it enters. One more runs in
# the host namespace, which it enters B from. Other cpusteer
# instances on the machine (other test runs) show in its output too: the
# checks look only at the series of this run's instances.
# shellcheck disable=SC2317 # the test functions run through t_run
set -u
# shellcheck source=selftests/lib_netns.sh
. "$(dirname "$0")/lib_netns.sh"

PROMTOOL=${PROMTOOL:-$NETNS_TOP/build/tools/promtool}
FLOWS=32
PER_FLOW=100
SENT=$((FLOWS * PER_FLOW))
NSC=csC$$
# shellcheck disable=SC1003 # the backslash is part of the name
ODD='o"\'$$			# an interface name with a quote and a backslash
ODD_SHOWN='o\"\\x5c'$$		# its label value as the text spells it
PORT=9435
EXP_PID=			# the exporter serving on B's $PORT
FAMILIES=			# families in a whole exposition
COOKIE_B=''
COOKIE_C=''
LB=''				# the label prefix of B's instance
LC=''				# and of C's

tests() {
	t_run exporter_help test_help
	t_run exporter_bad_options_are_usage_errors test_bad_options
	t_run exporter_once_passes_promtool test_once
	t_run exporter_serves_metrics test_serves
	t_run exporter_http_errors test_http_errors
	t_run exporter_counts_are_exact test_counts
	t_run exporter_device_errors_from_another_netns test_device_errors
	t_run exporter_other_netns_has_its_label test_other_netns
	t_run exporter_follows_instances_that_come_and_go test_come_and_go
	t_run exporter_concurrent_scrapes test_concurrent
	t_run exporter_address_in_use_fails test_address_in_use
	t_run exporter_serves_ipv6 test_ipv6
	t_run exporter_textfile_is_replaced_whole test_textfile_atomic
	t_run exporter_textfile_not_through_links test_textfile_links
	t_run exporter_sigterm_exits_0_and_detaches test_sigterm
}

in_c() { nsenter --net="/run/netns/$NSC" "$@"; }

# cpusteer in B: its stdout in $OUT, stderr in $ERR, exit status in $RC.
cs_run() {
	OUT=$(cs "$@" 2>"$NETNS_TMP/err")
	RC=$?
	ERR=$(<"$NETNS_TMP/err")
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

# GET (or CURL-ARGS) of PATH on B's exporter into FILE; prints the status.
scrape() {	# FILE [PATH [CURL-ARGS...]]
	local file=$1 path=${2:-/metrics}

	shift $(($# < 2 ? $# : 2))
	in_b curl -s -m 20 -o "$file" -w '%{http_code}' "$@" "http://127.0.0.1:$PORT$path"
}

# The value of one series (its name and labels as the text spells them).
value() {	# FILE SERIES
	S=$2 awk '$1 == ENVIRON["S"] { print $2; found = 1 } END { if (!found) print "none" }' "$1"
}

# The sum of a family's series of one instance (LABELS: its label prefix).
family_sum() {	# FILE FAMILY LABELS
	P="$2{$3" awk 'index($1, ENVIRON["P"]) == 1 { s += $2 } END { print s + 0 }' "$1"
}

# How much a packet family of B's instance grew from one scrape to another.
delta() {	# NAME BEFORE AFTER
	echo $(($(family_sum "$3" "cpusteer_$1_packets_total" "$LB") -
		$(family_sum "$2" "cpusteer_$1_packets_total" "$LB")))
}

# What breaks the format's rules in FILE: a family twice, a series out of
# its family's block. Nothing when all is well.
check_blocks() {	# FILE
	awk '/^# HELP / { next }
	     /^# TYPE / { if (seen[$3]++) print "second TYPE of " $3; family = $3; next }
	     { name = $1; sub(/\{.*/, "", name)
	       if (name != family) print "series " name " outside its family (" family ")" }' "$1"
}

# promtool's verdict on FILE; a missing promtool fails the test.
check_promtool() {	# FILE
	local out

	if [ ! -x "$PROMTOOL" ]; then
		t_fail "no promtool at $PROMTOOL (make setup fetches it)"
		return
	fi
	out=$("$PROMTOOL" check metrics <"$1" 2>&1) || t_fail "promtool check metrics on $1: $out"
}

# The exposition is whole: every family, the last line complete.
whole() {	# FILE
	[ "$(grep -c '^# TYPE ' "$1")" = "$FAMILIES" ] && [ -z "$(tail -c 1 "$1")" ]
}

served() {	# URL
	[ "$(in_b curl -sg -m 5 -o /dev/null -w '%{http_code}' "$1")" = 200 ]
}

exited() {	# PID
	! kill -0 "$1" 2>/dev/null
}

# Signals PID, waits up to 5 s for it to exit and leaves its status in $RC.
stop_wait() {	# PID SIGNAL
	kill "-$2" "$1"
	if ! wait_until 5 exited "$1"; then
		t_fail "still running 5 s after SIG$2"
		kill -KILL "$1"
	fi
	wait "$1"
	RC=$?
}

alive() {
	kill -0 "$EXP_PID" 2>/dev/null || t_fail "the exporter is no longer running: $(cat "$NETNS_TMP/exporter.err")"
}

test_help() {
	cs_run exporter --help
	t_eq "exit status" 0 "$RC"
	t_eq "first line" "usage: cpusteer exporter [OPTIONS]" "$(head -n 1 <<<"$OUT")"
}

test_bad_options() {
	local args

	for args in "--listen 127.0.0.1" "--listen 127.0.0.1:0" "--listen 127.0.0.1:65536" \
		"--listen localhost:9435" "--listen ::1:9435" "--listen [::1]" "--listen 10.1.2:80" \
		"--interval 5" "--once --listen 127.0.0.1:9" "--textfile x --once --interval 1" \
		"--textfile x --interval 0" "extra"; do
		# shellcheck disable=SC2086
		cs_run exporter $args
		t_eq "exit status of exporter $args" 2 "$RC"
		t_eq "stderr lines of exporter $args" 1 "$(grep -c . <<<"$ERR")"
		t_eq "stdout of exporter $args" "" "$OUT"
	done
}

# From B itself: B's instance is the exporter's own namespace's.
test_once() {
	local f=$NETNS_TMP/once.prom

	cs_run exporter --once
	t_eq "exit status" 0 "$RC"
	t_eq "stderr" "" "$ERR"
	printf '%s\n' "$OUT" >"$f"
	check_promtool "$f"
	t_eq "format problems" "" "$(check_blocks "$f")"
	FAMILIES=$(grep -c '^# TYPE ' "$f")
	t_ge "families" 20 "$FAMILIES"
	t_eq "info series of vethB" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
	t_eq "vethB present" 1 "$(value "$f" "cpusteer_interface_present{$LB}")"
	t_eq "xdp_exception counted for vethB" 1 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LB,tracepoint=\"xdp_exception\"}")"
	t_eq "buckets of CPU 0 and 1" 512 "$(family_sum "$f" cpusteer_cpu_buckets "$LB")"
	grep -q 'key' "$f" && t_fail "the text says 'key'"
}

test_serves() {
	local f=$NETNS_TMP/first.prom

	bg_b "$CPUSTEER" exporter 2>"$NETNS_TMP/exporter.err"
	EXP_PID=$BG_PID
	if ! wait_until 10 served "http://127.0.0.1:$PORT/metrics"; then
		t_fail "nothing served on 127.0.0.1:$PORT in B within 10 s: $(cat "$NETNS_TMP/exporter.err")"
		return
	fi
	t_eq "content type" "text/plain; version=0.0.4; charset=utf-8" \
		"$(scrape "$f" /metrics -w ' %{content_type}' | cut -d' ' -f2-)"
	t_eq "status" 200 "$(scrape "$f")"
	check_promtool "$f"
	whole "$f" || t_fail "the exposition is not whole"
	t_eq "info series of vethB" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
}

test_http_errors() {
	local f=$NETNS_TMP/http

	t_eq "GET /" 404 "$(scrape "$f" /)"
	t_eq "GET /metricsx" 404 "$(scrape "$f" /metricsx)"
	t_eq "POST /metrics" 405 "$(scrape "$f" /metrics -D "$f.h" -X POST --data x=1)"
	t_eq "Allow header of the 405" "Allow: GET, HEAD" "$(grep -i '^allow:' "$f.h" | tr -d '\r')"
	t_eq "DELETE /metrics" 405 "$(scrape "$f" /metrics -X DELETE)"
	t_eq "HEAD /metrics" 200 "$(scrape "$f" /metrics -I)"
	grep -qi '^content-type: text/plain; version=0.0.4' "$f" ||
		t_fail "HEAD has no exposition content type: $(tr -d '\r' <"$f")"
	grep -q '^cpusteer_' "$f" && t_fail "HEAD has a body"
	alive
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

redirect_errors_reach() {	# FILE N
	[ "$(value "$1" "cpusteer_xdp_redirect_errors_total{$LB}")" -ge "$2" ]
}

# The XDP error tracepoints filter by the instance's ifindex and
# namespace: an exporter in the host namespace must enter B to attach
# them. lo has no ndo_xdp_xmit, so every frame the second stage redirects
# there fails on vethB.
test_device_errors() {
	local f=$NETNS_TMP/host.prom out pid base errs sent

	cs unload "$VB" >/dev/null 2>&1
	if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --remote redirect:lo 2>&1); then
		t_fail "cpusteer load --remote redirect:lo failed: $out"
		return
	fi
	"$CPUSTEER" exporter --textfile "$f" --interval 0.1 2>"$NETNS_TMP/host.err" &
	pid=$!
	_bg_pids+=("$pid")	# for netns_cleanup, as bg_b does
	wait_until 10 grep -qs "^cpusteer_xdp_redirect_errors_total{$LB}" "$f" ||
		t_fail "no series of vethB in $f within 10 s: $(cat "$NETNS_TMP/host.err")"
	base=$(value "$f" "cpusteer_xdp_redirect_errors_total{$LB}")
	t_eq "xdp_redirect_err counted for vethB, seen from the host" 1 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LB,tracepoint=\"xdp_redirect_err\"}")"
	# shellcheck disable=SC2086
	sent=$(in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows $FLOWS --count $PER_FLOW)
	t_eq "sender" "sent $SENT failed 0" "$sent"
	wait_until 10 redirect_errors_reach "$f" $((base + SENT))
	errs=$(($(value "$f" "cpusteer_xdp_redirect_errors_total{$LB}") - base))
	t_eq "redirect errors on vethB" "$SENT" "$errs"
	t_eq "second-stage redirects" "$SENT" \
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
	# Its device tracepoints filter by an ifindex of C: attached in C.
	t_eq "xdp_exception counted for it" 1 \
		"$(value "$f" "cpusteer_tracepoint_attached{$LC,tracepoint=\"xdp_exception\"}")"
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

# Two scrapers, 50 scrapes each, at the same time.
test_concurrent() {
	local dir=$NETNS_TMP/conc w pids=() f bad=0

	mkdir -p "$dir"
	for w in 1 2; do
		(for i in $(seq 50); do scrape "$dir/$w.$i"; echo; done >"$dir/codes.$w") &
		pids+=($!)
	done
	wait "${pids[@]}"
	t_eq "answers 200" 100 "$(cat "$dir"/codes.* | grep -c '^200$')"
	for f in "$dir"/[12].*; do
		whole "$f" && [ -z "$(check_blocks "$f")" ] || bad=$((bad + 1))
	done
	t_eq "scrapes not whole or out of order" 0 "$bad"
	check_promtool "$dir/1.50"
	check_promtool "$dir/2.50"
	alive
}

test_address_in_use() {
	cs_run exporter --listen "127.0.0.1:$PORT"
	t_eq "exit status" 1 "$RC"
	t_eq "stderr" "cpusteer: cannot listen on 127.0.0.1:$PORT: Address already in use" "$ERR"
	alive
}

test_ipv6() {
	local pid

	bg_b "$CPUSTEER" exporter --listen "[::1]:$((PORT + 1))" 2>"$NETNS_TMP/v6.err"
	pid=$BG_PID
	wait_until 10 served "http://[::1]:$((PORT + 1))/metrics" ||
		t_fail "nothing served on [::1]:$((PORT + 1)): $(cat "$NETNS_TMP/v6.err")"
	stop_wait "$pid" INT
	t_eq "exit status after SIGINT" 0 "$RC"
}

test_textfile_atomic() {
	local dir=$NETNS_TMP/textfile f pid i bad=0 first

	mkdir -p "$dir"
	f=$dir/cpusteer.prom
	bg_b "$CPUSTEER" exporter --textfile "$f" --interval 0.01 2>"$NETNS_TMP/tf.err"
	pid=$BG_PID
	wait_until 10 test -e "$f" || t_fail "no $f within 10 s: $(cat "$NETNS_TMP/tf.err")"
	first=$(stat -c %y "$f" 2>/dev/null)
	for i in $(seq 300); do
		cat "$f" >"$dir/read" 2>/dev/null
		whole "$dir/read" || bad=$((bad + 1))
		[ "$i" = 1 ] && check_promtool "$dir/read"
	done
	t_eq "reads not whole" 0 "$bad"
	t_ne "the file's time after 300 reads (rewritten)" "$first" "$(stat -c %y "$f")"
	check_promtool "$dir/read"
	stop_wait "$pid" TERM
	t_eq "exit status after SIGTERM" 0 "$RC"
	t_eq "files in its folder" "cpusteer.prom read" "$(find "$dir" -mindepth 1 -printf '%f ' | tr ' ' '\n' | sort | xargs)"
	t_eq "stderr" "" "$(cat "$NETNS_TMP/tf.err")"
}

# A link planted where the file goes is replaced, never written through,
# and the file is readable by node_exporter whatever the umask.
test_textfile_links() {
	local dir=$NETNS_TMP/links

	mkdir -p "$dir"
	echo keep >"$dir/victim"
	ln -s victim "$dir/a.prom"
	ln -s "$dir/nowhere" "$dir/b.prom"
	(umask 077 && cs exporter --once --textfile "$dir/a.prom" && cs exporter --once --textfile "$dir/b.prom")
	t_eq "exit status" 0 "$?"
	t_eq "the link's target" keep "$(cat "$dir/victim")"
	[ -e "$dir/nowhere" ] && t_fail "a dangling link's target was created"
	for f in a b; do
		[ -L "$dir/$f.prom" ] && t_fail "$f.prom is still a link"
		t_eq "mode of $f.prom" 644 "$(stat -c %a "$dir/$f.prom")"
		check_promtool "$dir/$f.prom"
	done
	# An exporter that cannot write its file does not start.
	timeout 10 nsenter --net="/run/netns/$NSB" "$CPUSTEER" exporter \
		--textfile "$dir/missing/c.prom" 2>"$dir/err"
	t_eq "exit status with no such folder" 1 "$?"
	t_eq "stderr lines with no such folder" 1 "$(wc -l <"$dir/err")"
}

# The BPF programs a process holds an fd of (its tracepoints').
programs_of() {	# PID
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u
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
for t in curl jq bpftool; do
	command -v $t >/dev/null || t_abort "needs $t"
done
netns_setup v4only || t_abort "setup: $NETNS_WHY"
t_on_exit cleanup_c
if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
COOKIE_B=$(in_b "$TOOLS/netns_cookie")
LB="interface=\"$VB\",netns=\"$COOKIE_B\""
tests
t_exit
