#!/usr/bin/env bash
# cpusteer exporter and the pin tree it reads: interface names that are
# UTF-8 or not, as labels; an instance whose lock a command holds,
# skipped without holding up the scrape; a state folder a user made,
# refused without failing the scrape; the health of every instance, as
# status judges it, also of one a killed command left. What it counts of
# the kernel is test_exporter.sh's, its HTTP side test_exporter_http.sh's.
#
#   (the topology of lib_exporter.sh, and in B)
#   ümlaut<pid> ---- x\xff<pid>           cpusteer load on both: a UTF-8 name
#                                         and one with a byte no UTF-8 has
#
# Not in kernel runs: names, locks and folders, the same on every kernel
# shellcheck disable=SC2317 # the test functions run through t_run
set -u
# shellcheck source=selftests/lib_exporter.sh
. "$(dirname "$0")/lib_exporter.sh"

UML=$'\xc3\xbc'mlaut$$		# ümlaut<pid>
BAD=x$'\xff'$$			# no UTF-8: 0xff is in no sequence

tests() {
	t_run exporter_utf8_names_are_labels_as_they_are test_names
	t_run exporter_skips_a_locked_instance_at_once test_locked
	t_run exporter_answers_with_a_refused_state_dir test_refused_state_dir
	t_run exporter_reports_health_as_status_does test_health
}

# node_exporter's `device` label is the name as the kernel has it: ours
# must be the same string to join on. A byte that is no UTF-8 becomes the
# characters \xff of the value (\\xff in the text).
test_names() {
	local f=$NETNS_TMP/names.prom n out

	if ! { ip -n "$NSB" link add "$UML" type veth peer name "$BAD" &&
		ip -n "$NSB" link set "$UML" up && ip -n "$NSB" link set "$BAD" up; }; then
		t_fail "cannot make the veth pair $UML, $BAD in $NSB"
		return
	fi
	for n in "$UML" "$BAD"; do
		out=$(cs load "$n" --cpus 0 --key "$KEY2" 2>&1) || t_fail "cpusteer load $n: $out"
	done
	cs exporter --once >"$f"
	t_eq "info series of $UML" 1 \
		"$(grep -c -F "cpusteer_instance_info{interface=\"$UML\",netns=\"$COOKIE_B\"," "$f")"
	t_eq "info series of x\\xff$$" 1 \
		"$(grep -c -F "cpusteer_instance_info{interface=\"x\\\\xff$$\",netns=\"$COOKIE_B\"," "$f")"
	iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || t_fail "the exposition is not UTF-8"
	check_promtool "$f"
}

# A command holding vethB's lock (load, set or unload would) costs the
# scrape vethB's series, counted as skipped, and nothing else: not the
# series of the other instances, not a wait of 10 s, not a line on
# stderr at every scrape.
test_locked() {
	local f=$NETNS_TMP/locked.prom holder out

	start_exporter
	# The holder: a shell that takes the lock on its own descriptor and
	# becomes sleep, which keeps it.
	(exec 9<"$PINS" && flock -x 9 && exec sleep 60) &
	holder=$!
	_bg_pids+=("$holder")
	wait_until 5 lock_held "$PINS" || t_fail "the holder did not take the lock"
	out=$(in_b curl -s -m 30 -o "$f" -w '%{http_code} %{time_total}' "http://127.0.0.1:$PORT/metrics")
	echo "# a scrape with vethB locked: ${out#* } s"
	t_eq "status while locked" 200 "${out% *}"
	awk -v t="${out#* }" 'BEGIN { exit !(t < 5) }' ||
		t_fail "the scrape took ${out#* } s; the lock wait is 0.1 s"
	whole "$f" || t_fail "the exposition is not whole"
	t_eq "vethB's series while locked" 0 "$(grep -c "{$LB" "$f")"
	t_eq "skipped as locked" 1 "$(value "$f" 'cpusteer_instances_skipped{reason="locked"}')"
	t_eq "info series of $UML (not locked)" 1 \
		"$(grep -c -F "cpusteer_instance_info{interface=\"$UML\",netns=\"$COOKIE_B\"," "$f")"
	kill "$holder"
	wait "$holder" 2>/dev/null
	t_eq "status after" 200 "$(scrape "$f")"
	t_eq "vethB's info series after" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
	t_eq "skipped as locked after" 0 "$(value "$f" 'cpusteer_instances_skipped{reason="locked"}')"
	t_eq "the exporter's stderr" "" "$(cat "$NETNS_TMP/exporter.err")"
	alive
}

# bpffs is mode 1777: while no instance exists, any user can make
# /sys/fs/bpf/cpusteer. The exporter refuses it (not root's), and says so
# in a series and in one line, not in an HTTP 500 and a line at every
# scrape. Its own bpffs, in a mount namespace of its own, keeps this
# run's instances out of its sight.
test_refused_state_dir() {
	local f=$NETNS_TMP/refused.prom err=$NETNS_TMP/refused.err port=$((PORT + 3)) pid i

	# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
	unshare -m --propagation private sh -c 'mount -t bpf bpf /sys/fs/bpf &&
		setpriv --reuid nobody --regid nogroup --clear-groups mkdir /sys/fs/bpf/cpusteer &&
		exec nsenter --net="$1" "$0" exporter --listen "$2"' \
		"$CPUSTEER" "/run/netns/$NSB" "127.0.0.1:$port" 2>"$err" &
	pid=$!
	_bg_pids+=("$pid")
	if ! wait_until 10 served "http://127.0.0.1:$port/metrics"; then
		t_fail "no 200 on 127.0.0.1:$port within 10 s: $(head -n 3 "$err")"
		return
	fi
	for i in 1 2 3; do
		t_eq "status of scrape $i" 200 \
			"$(in_b curl -s -m 20 -o "$f" -w '%{http_code}' "http://127.0.0.1:$port/metrics")"
	done
	whole "$f" || t_fail "the exposition is not whole"
	t_eq "the state folder" 0 "$(value "$f" 'cpusteer_state_dir_ok{reason="refused"}')"
	t_eq "instances" 0 "$(value "$f" cpusteer_instances)"
	t_eq "lines on stderr after 4 scrapes" 1 "$(grep -c . "$err")"
	grep -q 'belongs to user nobody (uid [0-9]*), not root' "$err" || t_fail "stderr: $(head -n 3 "$err")"
	# Once root owns it, it is walked again.
	nsenter --mount="/proc/$pid/ns/mnt" chown root:root /sys/fs/bpf/cpusteer
	in_b curl -s -m 20 -o "$f" "http://127.0.0.1:$port/metrics"
	t_eq "the state folder once root's" 1 "$(value "$f" cpusteer_state_dir_ok)"
	check_promtool "$f"
	stop_wait "$pid" TERM
	t_eq "exit status after SIGTERM" 0 "$RC"
}

# The health families of B's vethB (or of IFACE) in FILE:
# "PROBLEM PHASE ATTACHED", "-" for what is not there.
health_of() {	# FILE [IFACE]
	local l="interface=\"${2:-$VB}\",netns=\"$COOKIE_B\""

	awk -v l="$l" '
		index($1, "cpusteer_instance_health{" l ",problem=") == 1 {
			split($1, p, "problem=\""); sub(/".*/, "", p[2]); problem = p[2] }
		index($1, "cpusteer_instance_phase{" l ",phase=") == 1 {
			split($1, p, "phase=\""); sub(/".*/, "", p[2]); phase = p[2] }
		$1 == "cpusteer_instance_attached{" l "}" { attached = $2 }
		END { printf "%s %s %s\n", problem ? problem : "-", phase ? phase : "-",
			attached != "" ? attached : "-" }' "$1"
}

# status names what is wrong with an instance; the exporter must say the
# same, so that an alert can fire: another program put in cpusteer's
# place, a set killed halfway (still exported: the instance serves), a
# load killed halfway (not exported, its health all the same).
test_health() {
	local f=$NETNS_TMP/health.prom obj=$NETNS_TOP/build/selftests/pass_count.bpf.o cmd calls out

	command -v strace >/dev/null || { t_skip "needs strace, to kill a command at a chosen call"; return; }
	cs exporter --once >"$f"
	t_eq "vethB loaded" "ok ready 1" "$(health_of "$f")"
	if ip -n "$NSB" -force link set dev "$VB" xdp obj "$obj" sec xdp; then
		cs exporter --once >"$f"
		t_eq "vethB with another program in its place" "program_replaced ready 0" \
			"$(health_of "$f")"
		t_eq "status says the same" program_replaced \
			"$(cs status "$VB" --json | jq -r '.instances[0].health')"
		ip -n "$NSB" link set dev "$VB" xdp off
	else
		t_fail "cannot attach $obj to $VB"
	fi
	cs unload "$VB" >/dev/null 2>&1
	out=$(cs load "$VB" --cpus 0-1 --key "$KEY2" 2>&1) || t_fail "load again: $out"
	# A set dies at its last bpf call, the write that says it is done
	# (counted on the same set from the same state).
	calls=$(in_b strace -f -qq -e trace=bpf -o /dev/stdout "$CPUSTEER" set "$VB" --cpus 0 \
		2>/dev/null | grep -c '^[0-9 ]*bpf(')
	cs set "$VB" --cpus 0-1 >/dev/null || t_fail "set --cpus 0-1 failed"
	in_b strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGKILL:when="$calls" \
		"$CPUSTEER" set "$VB" --cpus 0 >/dev/null 2>&1
	cs exporter --once >"$f"
	t_eq "vethB after a killed set" "interrupted_set setting 1" "$(health_of "$f")"
	t_eq "vethB's counters still exported" 1 "$(grep -c "^cpusteer_instance_info{$LB," "$f")"
	out=$(cs set "$VB" 2>&1) || t_fail "set to finish it: $out"
	# A load of the UTF-8 pair's end dies the same way.
	cmd=(load "$UML" --cpus 0)
	cs unload "$UML" >/dev/null 2>&1
	calls=$(in_b strace -f -qq -e trace=bpf -o /dev/stdout "$CPUSTEER" "${cmd[@]}" \
		2>/dev/null | grep -c '^[0-9 ]*bpf(')
	cs unload "$UML" >/dev/null 2>&1
	in_b strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGKILL:when="$calls" \
		"$CPUSTEER" "${cmd[@]}" >/dev/null 2>&1
	cs exporter --once >"$f"
	t_eq "$UML after a killed load" "interrupted_load loading 1" "$(health_of "$f" "$UML")"
	t_eq "$UML's counters" 0 \
		"$(grep -c -F "cpusteer_instance_info{interface=\"$UML\"," "$f")"
	t_ge "skipped as not ready" 1 "$(value "$f" 'cpusteer_instances_skipped{reason="not_ready"}')"
	check_promtool "$f"
}

cleanup_names() {
	local n

	[ -e "/run/netns/$NSB" ] || return 0
	for n in "$UML" "$BAD"; do
		cs unload "$n" >/dev/null 2>&1
	done
	ip -n "$NSB" link del "$UML" 2>/dev/null
}

t_plan_of tests
exporter_setup
t_on_exit cleanup_names
tests
t_exit
