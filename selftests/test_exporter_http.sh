#!/usr/bin/env bash
# cpusteer exporter's options, HTTP side and text file: usage errors,
# the content type, 404 and 405, two concurrent scrapers, clients of
# user nobody that never finish their request (closed at a deadline,
# limited per address, and no hold on scrapes), an address in use and
# who holds it, IPv6, the text file replaced whole and never written
# through a link. What it reads of the kernel is test_exporter.sh's.
#
#   (the topology of lib_exporter.sh)
#   in B, as user nobody: tools/http_trickle.py, clients that send a
#   header line now and then and never the end of their request
#
# Not in kernel runs: HTTP, files and options, the same on every kernel (6 s on the host, minutes under emulation)
# shellcheck disable=SC2317 # the test functions run through t_run
set -u
# shellcheck source=selftests/lib_exporter.sh
. "$(dirname "$0")/lib_exporter.sh"

tests() {
	t_run exporter_help test_help
	t_run exporter_bad_options_are_usage_errors test_bad_options
	t_run exporter_http_content_type test_content_type
	t_run exporter_http_errors test_http_errors
	t_run exporter_concurrent_scrapes test_concurrent
	t_run exporter_closes_a_trickling_request_at_its_deadline test_request_deadline
	t_run exporter_limits_connections_per_address test_per_address
	t_run exporter_answers_scrapes_under_trickling_clients test_tricklers
	t_run exporter_address_in_use_fails test_address_in_use
	t_run exporter_address_in_use_names_the_holder test_address_in_use_names_holder
	t_run exporter_serves_ipv6 test_ipv6
	t_run exporter_textfile_is_replaced_whole test_textfile_atomic
	t_run exporter_textfile_not_through_links test_textfile_links
}

test_help() {
	cs_run exporter --help
	t_eq "exit status" 0 "$RC"
	t_eq "first line" "usage: cpusteer exporter [OPTIONS]" "$(head -n 1 <<<"$OUT")"
}

test_bad_options() {
	local args

	for args in "--listen 127.0.0.1" "--listen 127.0.0.1:0" "--listen 127.0.0.1:65536" \
		"--listen localhost:19435" "--listen ::1:19435" "--listen [::1]" "--listen 10.1.2:80" \
		"--interval 5" "--once --listen 127.0.0.1:9" "--textfile x --once --interval 1" \
		"--textfile x --interval 0" "extra"; do
		# shellcheck disable=SC2086
		cs_run exporter $args
		t_eq "exit status of exporter $args" 2 "$RC"
		t_eq "stderr lines of exporter $args" 1 "$(grep -c . <<<"$ERR")"
		t_eq "stdout of exporter $args" "" "$OUT"
	done
}

test_content_type() {
	local f=$NETNS_TMP/first.prom

	start_exporter
	t_eq "content type" "text/plain; version=0.0.4; charset=utf-8" \
		"$(scrape "$f" /metrics -w ' %{content_type}' | cut -d' ' -f2-)"
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

TRICKLE=$NETNS_TOP/selftests/tools/http_trickle.py
NOBODY_PY=''

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# A python3 user nobody can run: not one under root's home.
find_nobody_python() {
	local p

	for p in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3)"; do
		if [ -x "$p" ] && as_nobody "$p" -c '' 2>/dev/null; then
			NOBODY_PY=$p
			return 0
		fi
	done
	return 1
}

# http_trickle.py as user nobody in B, given as text: its folder may be
# out of nobody's reach.
trickle() {	# ARGS...
	in_b setpriv --reuid=65534 --regid=65534 --clear-groups "$NOBODY_PY" -c "$(<"$TRICKLE")" "$@"
}

# A client that sends a header line every 0.5 s has its connection
# closed once the request deadline (5 s) has passed.
test_request_deadline() {
	local out

	out=$(trickle 127.0.0.1 "$PORT" 1 --every 0.5 --for 12 | tail -n 1)
	echo "# a request trickled a line every 0.5 s: $out"
	t_eq "connections open after 12 s, closed" "open 0 closed 1" "${out% longest *}"
	awk -v t="${out##* }" 'BEGIN { exit !(t >= 4.5 && t < 8) }' ||
		t_fail "closed after ${out##* } s; the deadline is 5 s"
	alive
}

# 30 idle connections from 127.0.0.2: 16 stay, each newcomer beyond
# them taking the place of the longest idle.
test_per_address() {
	local out

	out=$(trickle 127.0.0.1 "$PORT" 30 --every 0.5 --for 1.5 --from 127.0.0.2 | tail -n 1)
	t_eq "connections of 127.0.0.2 open, closed" "open 16 closed 14" "${out% longest *}"
	alive
}

# 70 clients of user nobody that send a header line every second and
# connect again whenever closed: more than the exporter's 64 slots, from
# the address Prometheus scrapes from. Every scrape still gets its
# answer, whole.
test_tricklers() {
	local out=$NETNS_TMP/trickle f=$NETNS_TMP/trickled.prom i r pid times=''

	bg_b setpriv --reuid=65534 --regid=65534 --clear-groups "$NOBODY_PY" -c "$(<"$TRICKLE")" \
		127.0.0.1 "$PORT" 70 --every 1 --for 60 --reconnect >"$out"
	pid=$BG_PID
	if ! wait_until 10 grep -qx ready "$out"; then
		t_fail "the clients did not start"
		return
	fi
	sleep 1
	for i in 1 2 3 4 5; do
		r=$(in_b curl -s -m 20 -o "$f" -w '%{http_code} %{time_total}' \
			"http://127.0.0.1:$PORT/metrics")
		t_eq "status of scrape $i" 200 "${r% *}"
		whole "$f" || t_fail "scrape $i is not whole"
		times="$times ${r#* }"
		sleep 0.5
	done
	echo "# scrapes under 70 trickling clients (s):$times"
	for r in $times; do
		awk -v t="$r" 'BEGIN { exit !(t < 5) }' || t_fail "a scrape took $r s"
	done
	kill "$pid"
	wait "$pid" 2>/dev/null
	t_eq "the exporter's stderr" "" "$(cat "$NETNS_TMP/exporter.err")"
	alive
}

# The port of the exporter already serving: the line names it.
test_address_in_use() {
	cs_run exporter --listen "127.0.0.1:$PORT"
	t_eq "exit status" 1 "$RC"
	t_eq "stderr" "cpusteer: cannot listen on 127.0.0.1:$PORT: Address already in use by cpusteer (pid $EXP_PID)" "$ERR"
	alive
}

# Another program listening on every address of B holds the port of
# 127.0.0.1 too; from a PID namespace of its own the exporter cannot see
# which process that is, and says so.
test_address_in_use_names_holder() {
	local port=$((PORT + 4)) out=$NETNS_TMP/holder.out pid want

	bg_b python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen()
print("listening", flush=True)
time.sleep(60)' "$port" >"$out"
	pid=$BG_PID
	wait_until 10 grep -q listening "$out" || t_fail "the holder never listened on $port"
	want="cpusteer: cannot listen on 127.0.0.1:$port: Address already in use"
	cs_run exporter --listen "127.0.0.1:$port"
	t_eq "exit status" 1 "$RC"
	t_eq "stderr" "$want by python3 (pid $pid)" "$ERR"
	ERR=$(in_b unshare --pid --fork --mount-proc "$CPUSTEER" exporter --listen "127.0.0.1:$port" 2>&1)
	RC=$?
	t_eq "exit status, holder out of sight" 1 "$RC"
	t_eq "stderr, holder out of sight" "$want by another process" "$ERR"
	stop_wait "$pid" TERM
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

t_plan_of tests
exporter_setup
find_nobody_python || t_abort "needs a python3 that user nobody can run"
tests
t_exit
