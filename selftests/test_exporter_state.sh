#!/usr/bin/env bash
# cpusteer exporter and the pin tree it reads: interface names that are
# UTF-8 or not, as labels; an instance whose lock a command holds,
# skipped without holding up the scrape. What it counts of the kernel is
# test_exporter.sh's, its HTTP side test_exporter_http.sh's.
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

lock_held() {	# FOLDER
	! flock -n -s "$1" true
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
