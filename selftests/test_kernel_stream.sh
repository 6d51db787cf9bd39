#!/usr/bin/env bash
# selftests/kernels/stream_results.sh, which make test-kernels runs beside
# each guest: a line per test file as soon as the guest's log has its
# result, with the right counts, and an end when the guest does. Fed a log
# written here by hand, in the forms selftests/run.sh writes, with a
# sleep standing in for the guest's QEMU.
#
# Not in kernel runs: no kernel in it, only the host's reading of a log
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

STREAM=$TU_TOP/selftests/kernels/stream_results.sh
t_tmpdir

# A file's block as selftests/run.sh writes it in the guest.
first_file() {
	printf '%s\n' '# selftests/test_a.sh' '1..3' 'ok 1 - one' 'not ok 2 - two' \
		'ok 3 - three # SKIP not here' '# selftests/test_a.sh: 12.5 s'
}
rest_of_suite() {
	printf '%s\n' '# selftests/test_b.sh' \
		'ok - selftests/test_b.sh # SKIP not in kernel runs: the same everywhere' \
		'# build/selftests/test_c' '1..1' 'ok 1 - c' '# build/selftests/test_c: 0.3 s' \
		'2 passed, 1 failed, 2 skipped'
}

# Waits up to 20 s for FILE to hold a line containing TEXT.
wait_for_line() {	# FILE TEXT
	local i

	for ((i = 0; i < 200; i++)); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# The first file's line comes while the guest is still at work, before
# the log holds anything more.
test_a_file_shows_when_it_ends() {
	local log=$T_TMP/live/suite.log out=$T_TMP/live.out guest streamer i

	mkdir -p "$T_TMP/live"
	sleep 300 &
	guest=$!
	"$STREAM" guest-a "$log" "$guest" >"$out" &
	streamer=$!
	# The guest makes its log only after it boots.
	sleep 0.5
	first_file >"$log"
	if ! wait_for_line "$out" "test_a.sh:"; then
		t_fail "no line for test_a.sh within 20 s of its result: $(cat "$out")"
	fi
	t_eq "the line for test_a.sh" \
		"# guest-a: test_a.sh: 1 passed, 1 failed, 1 skipped in 12.5 s" \
		"$(sed -n 's/; [0-9]* min [0-9]* s since boot$//p' "$out")"
	rest_of_suite >>"$log"
	wait_for_line "$out" "test_c:" || t_fail "no line for test_c within 20 s"
	kill "$guest"
	wait "$guest" 2>/dev/null
	# tail --pid notices within its one-second sleep.
	for ((i = 0; i < 50; i++)); do
		kill -0 "$streamer" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$streamer" 2>/dev/null; then
		t_fail "the streamer outlived the guest by 5 s"
		kill "$streamer"
	fi
	wait "$streamer" 2>/dev/null
	t_eq "every line" \
		"$(printf '%s\n' \
			'# guest-a: test_a.sh: 1 passed, 1 failed, 1 skipped in 12.5 s' \
			'# guest-a: test_b.sh: not in kernel runs' \
			'# guest-a: test_c: 1 passed, 0 failed, 0 skipped in 0.3 s')" \
		"$(sed 's/; [0-9]* min [0-9]* s since boot$//' "$out")"
	grep -qv 'since boot$' "$out" && t_fail "a line without the time since boot: $(cat "$out")"
}

all_tests() {
	t_run kernel_stream_a_file_shows_when_it_ends test_a_file_shows_when_it_ends
}

t_plan_of all_tests
all_tests
t_exit
