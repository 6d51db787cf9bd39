#!/usr/bin/env bash
# The harness itself: a total from selftests/run.sh is only worth
# something if the runner counts, as failures, what did not run or did
# not say how it went, and if the netns fixtures leave nothing behind
# however a test ends. Fake test files in a scratch directory, run through
# run.sh with SELFTEST_SRC / SELFTEST_BIN / SELFTEST_TIMEOUT pointing at
# them, check the first; fixture scripts that fail, exit in the middle or
# are killed by the runner's timeout while cpusteer is loaded check the
# second.
#
# Not in kernel runs: the runner's and the fixtures' own bookkeeping, the same on every kernel (16 s on the host, 3 min under emulation)
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"

SELFTESTS=$TU_TOP/selftests
t_tmpdir

# Writes a fake test file from stdin: CASE/src/NAME, executable.
fake() {	# CASE NAME
	mkdir -p "$T_TMP/$1/src" "$T_TMP/$1/bin"
	cat >"$T_TMP/$1/src/$2"
	chmod +x "$T_TMP/$1/src/$2"
}

# Runs run.sh on the fake files of CASE; its output goes to $RUN_OUT, its
# exit status to $RUN_RC, its last line to $RUN_LAST.
runner() {	# CASE [TIMEOUT]
	RUN_OUT=$T_TMP/$1/run.out
	SELFTEST_SRC=$T_TMP/$1/src SELFTEST_BIN=$T_TMP/$1/bin SELFTEST_TIMEOUT=${2:-60} \
		SELFTEST_IN_HARNESS=1 "$SELFTESTS/run.sh" >"$RUN_OUT" 2>&1
	RUN_RC=$?
	RUN_LAST=$(tail -n 1 "$RUN_OUT")
}

# The totals run.sh ends with, its exit status (0 or nonzero), and the
# "not ok - FILE: why" line it must print (a fixed string), if any.
expect_run() {	# TOTALS 0|nonzero [LINE]
	local notes=$T_NOTES line

	t_eq "last line" "$1" "$RUN_LAST"
	if [ "$2" = 0 ]; then
		t_eq "exit status" 0 "$RUN_RC"
	else
		t_ne "exit status" 0 "$RUN_RC"
	fi
	if [ -n "${3:-}" ] && ! grep -qF -- "$3" "$RUN_OUT"; then
		t_fail "no line '$3' in the output of run.sh"
	fi
	if [ "$T_NOTES" != "$notes" ]; then
		tail -n 12 "$RUN_OUT" | while IFS= read -r line; do
			echo "#     run.sh: $line"
		done
	fi
}

# ---- the runner ----

runner_counts_clean_file() {
	fake clean test_clean.sh <<'EOF'
#!/bin/sh
echo 1..3
echo "ok 1 - first"
echo "# a diagnostic"
echo "ok 2 - second"
echo "ok 3 - third # SKIP not here"
EOF
	runner clean
	expect_run "2 passed, 0 failed, 1 skipped" 0
	grep -q '^not ok' "$RUN_OUT" && t_fail "a 'not ok' line for a clean file"
}

# A kernel run leaves out a file whose source says so, as one skip with
# its reason, and does not run it; any other run runs it.
runner_kernel_run_skips_marked_files() {
	fake marked test_marked.sh <<EOF
#!/bin/sh
# Not in kernel runs: too slow there
touch "$T_TMP/marked/ran"
echo 1..1
echo "ok 1 - marked"
EOF
	fake marked test_markedc.c <<'EOF'
/* Not in kernel runs: pure user space */
EOF
	fake marked test_plain.sh <<'EOF'
#!/bin/sh
echo 1..1
echo "ok 1 - plain"
EOF
	SELFTEST_KERNEL_RUN=1 runner marked
	expect_run "1 passed, 0 failed, 2 skipped" 0 \
		"test_marked.sh # SKIP not in kernel runs: too slow there"
	grep -qF "test_markedc # SKIP not in kernel runs: pure user space" "$RUN_OUT" ||
		t_fail "no skip line for the C test's program"
	[ -e "$T_TMP/marked/ran" ] && t_fail "the marked file ran in a kernel run"
	rm -f "$T_TMP/marked/src/test_markedc.c"
	SELFTEST_KERNEL_RUN= runner marked
	expect_run "2 passed, 0 failed, 0 skipped" 0
	[ -e "$T_TMP/marked/ran" ] || t_fail "the marked file did not run outside kernel runs"
}

# A file marked to run beside the others starts before the files ahead
# of it end: the first file waits for the marked one's mark, which it
# sees only if the marked file runs beside it. The marked file's output
# is shown and counted in its own place. A kernel run that leaves a
# marked file out does not start it either.
runner_runs_marked_files_beside_the_others() {
	fake beside test_a_waits.sh <<EOF
#!/bin/sh
echo 1..1
n=0
while [ ! -e "$T_TMP/beside/mark" ] && [ \$n -lt 200 ]; do sleep 0.1; n=\$((n + 1)); done
if [ -e "$T_TMP/beside/mark" ]; then echo "ok 1 - the marked file ran beside"; else echo "not ok 1 - no mark"; fi
EOF
	fake beside test_b_marked.sh <<EOF
#!/bin/sh
touch "$T_TMP/beside/mark"
echo 1..2
echo "ok 1 - marked"
echo "ok 2 - marked # SKIP counted in its place"
EOF
	# Written apart, so that this file's own lines bear no mark.
	printf '# Runs beside %s: a fixture\n' "the others" >>"$T_TMP/beside/src/test_b_marked.sh"
	runner beside
	expect_run "2 passed, 0 failed, 1 skipped" 0
	# The marked file's results come after the first file's.
	[ "$(grep -n '^ok 1 - the marked file ran beside' "$RUN_OUT" | cut -d: -f1)" -lt \
	  "$(grep -n '^ok 1 - marked' "$RUN_OUT" | cut -d: -f1)" ] 2>/dev/null ||
		t_fail "the marked file's output is not in its own place"
	rm -f "$T_TMP/beside/mark" "$T_TMP/beside/src/test_a_waits.sh"
	printf '# Not in kernel runs: a fixture\n' >>"$T_TMP/beside/src/test_b_marked.sh"
	SELFTEST_KERNEL_RUN=1 runner beside
	[ -e "$T_TMP/beside/mark" ] && t_fail "a file a kernel run leaves out was started"
	grep -qF "test_b_marked.sh # SKIP not in kernel runs: a fixture" "$RUN_OUT" ||
		t_fail "no skip line for the marked file"
}

# A short suite runs only the files its list names, and a name that
# matches no file fails the run instead of shrinking it unnoticed.
runner_short_suite_runs_only_listed_files() {
	local f

	for f in listed other; do
		fake short "test_$f.sh" <<EOF
#!/bin/sh
touch "$T_TMP/short/ran_$f"
echo 1..1
echo "ok 1 - $f"
EOF
	done
	printf '# the list\ntest_listed   # why it is there\n' >"$T_TMP/short/list"
	SELFTEST_ONLY=$T_TMP/short/list runner short
	expect_run "1 passed, 0 failed, 0 skipped" 0
	[ -e "$T_TMP/short/ran_listed" ] || t_fail "the listed file did not run"
	[ -e "$T_TMP/short/ran_other" ] && t_fail "a file the list does not name ran"
	echo test_gone >>"$T_TMP/short/list"
	SELFTEST_ONLY=$T_TMP/short/list runner short
	expect_run "1 passed, 1 failed, 0 skipped" nonzero \
		"not ok - test_gone: named in $T_TMP/short/list but no such test file"
}

runner_counts_missing_binary() {
	fake missing test_notbuilt.c </dev/null
	fake missing test_fine.sh <<'EOF'
#!/bin/sh
echo 1..1
echo "ok 1 - fine"
EOF
	runner missing
	expect_run "1 passed, 1 failed, 0 skipped" nonzero \
		"not ok - $T_TMP/missing/bin/test_notbuilt: not built"
}

runner_counts_signal_death() {
	fake signal test_segv.sh <<'EOF'
#!/bin/bash
echo 1..2
echo "ok 1 - one"
echo "ok 2 - two"
kill -KILL $$
EOF
	runner signal
	expect_run "2 passed, 1 failed, 0 skipped" nonzero "killed by signal 9"
}

runner_counts_nonzero_exit() {
	fake status test_status.sh <<'EOF'
#!/bin/sh
echo 1..1
echo "ok 1 - one"
exit 3
EOF
	runner status
	expect_run "1 passed, 1 failed, 0 skipped" nonzero "exited with status 3"
}

# The tests cut by the timeout count as failed, one each.
runner_counts_timeout() {
	fake timeout test_slow.sh <<'EOF'
#!/bin/sh
echo 1..3
echo "ok 1 - quick"
sleep 60
echo "ok 2 - slow"
echo "ok 3 - slower"
EOF
	fake timeout test_hangs_at_end.sh <<'EOF'
#!/bin/sh
echo 1..1
echo "ok 1 - done"
sleep 60
EOF
	runner timeout 2
	expect_run "2 passed, 3 failed, 0 skipped" nonzero \
		"timed out after 2s; 2 of the 3 planned tests did not report"
	grep -qF "test_hangs_at_end.sh: timed out after 2s" "$RUN_OUT" ||
		t_fail "no timeout line for a file that reported all its tests"
}

# A file's own longer time limit is kept; a shorter one is not.
runner_keeps_a_files_own_time_limit() {
	fake ownlimit test_long.sh <<'EOF'
#!/bin/sh
# Time limit: 8 s: a file that needs more than the run's limit
echo 1..1
sleep 3
echo "ok 1 - slow but allowed"
EOF
	fake ownlimit test_short.sh <<'EOF'
#!/bin/sh
# Time limit: 1 s: lower than the run's own, which stands
echo 1..1
sleep 1.5
echo "ok 1 - within the run's limit"
EOF
	runner ownlimit 2
	expect_run "2 passed, 0 failed, 0 skipped" 0
	fake ownlimit_late test_late.sh <<'EOF'
#!/bin/sh
# Time limit: 2 s: more than the run's 1, and still too little
echo 1..1
sleep 30
echo "ok 1 - too late"
EOF
	runner ownlimit_late 1
	expect_run "0 passed, 1 failed, 0 skipped" nonzero \
		"test_late.sh: timed out after 2s; 1 of the 1 planned tests did not report"
}

runner_counts_fewer_results_than_planned() {
	fake fewer test_fewer.sh <<'EOF'
#!/bin/sh
echo 1..4
echo "ok 1 - one"
echo "ok 2 - two"
EOF
	runner fewer
	expect_run "2 passed, 2 failed, 0 skipped" nonzero "2 of the 4 planned tests did not report"
}

runner_counts_missing_plan() {
	fake noplan test_noplan.sh <<'EOF'
#!/bin/sh
echo "ok 1 - one"
echo "ok 2 - two"
EOF
	fake noplan test_silent.sh <<'EOF'
#!/bin/sh
exit 0
EOF
	runner noplan
	expect_run "2 passed, 2 failed, 0 skipped" nonzero "test_silent.sh: no plan"
}

runner_counts_bad_numbering() {
	fake numbers test_more.sh <<'EOF'
#!/bin/sh
echo 1..1
echo "ok 1 - one"
echo "ok 2 - two"
EOF
	fake numbers test_dup.sh <<'EOF'
#!/bin/sh
echo 1..2
echo "ok 1 - one"
echo "ok 1 - one again"
EOF
	fake numbers test_late_plan.sh <<'EOF'
#!/bin/sh
echo "ok 1 - one"
echo 1..1
EOF
	runner numbers
	expect_run "5 passed, 3 failed, 0 skipped" nonzero "2 results for a plan of 1"
	grep -qF "test_dup.sh: result 2 is numbered 1" "$RUN_OUT" ||
		t_fail "no failure for a duplicate number"
	grep -qF "test_late_plan.sh: the plan came after 1 results" "$RUN_OUT" ||
		t_fail "no failure for a plan after the results"
}

# lib.sh: a test that failed and then skipped is "not ok".
runner_counts_skip_after_failure_shell() {
	fake skipsh test_skipsh.sh <<EOF
#!/usr/bin/env bash
. "$SELFTESTS/lib.sh"
t_plan failed_then_skipped skipped passed
t_begin failed_then_skipped
t_fail "on purpose"
t_skip "a skip must not hide the failure"
t_begin skipped
t_skip "nothing failed"
t_run passed true
t_exit
EOF
	runner skipsh
	expect_run "1 passed, 1 failed, 1 skipped" nonzero "not ok 1 - failed_then_skipped"
}

# test_util.h: the same, in C, with the plan from the table.
runner_counts_skip_after_failure_c() {
	if ! command -v "${CC:-cc}" >/dev/null; then
		t_skip "no C compiler"
		return
	fi
	fake skipc test_skipc.c <<'EOF'
#include "test_util.h"

static void failed_then_skipped(void)
{
	ASSERT_EQ(1, 2, "on purpose");
	SKIP("a skip must not hide the failure");
}

static void skipped(void)
{
	SKIP("nothing failed");
}

static void passed(void)
{
	ASSERT_EQ(1, 1, "one");
}

static const struct tu_test tests[] = {
	TU_TEST(failed_then_skipped),
	TU_TEST(skipped),
	TU_TEST(passed),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
EOF
	if ! "${CC:-cc}" -Wall -Werror -I"$SELFTESTS" -o "$T_TMP/skipc/bin/test_skipc" \
		"$T_TMP/skipc/src/test_skipc.c" 2>"$T_TMP/skipc/cc.err"; then
		t_fail "cannot compile a test against test_util.h"
		t_note_file "$T_TMP/skipc/cc.err" cc
		return
	fi
	runner skipc
	expect_run "1 passed, 1 failed, 1 skipped" nonzero "not ok 1 - failed_then_skipped"
	grep -qx '1\.\.3' "$RUN_OUT" || t_fail "no plan 1..3 from the table"
}

# lib.sh: an exit in the middle reports the rest of the plan as failed.
runner_counts_lib_exit_in_middle() {
	fake libexit test_libexit.sh <<EOF
#!/usr/bin/env bash
. "$SELFTESTS/lib.sh"
t_plan first second third
t_run first true
t_begin second
exit 0
EOF
	runner libexit
	expect_run "1 passed, 2 failed, 0 skipped" nonzero "not ok 3 - third"
}

# ---- the netns fixtures ----

# A fixture script: the topology, cpusteer loaded on vethB, a background
# command in B, the names written to STATE; then HOW: fail, exit or hang
# (for the runner's timeout to TERM it).
fixture() {	# CASE HOW
	fake "$1" "test_fixture_$2.sh" <<EOF
#!/usr/bin/env bash
. "$SELFTESTS/lib_netns.sh"
t_plan fixture_$2
netns_setup v4only || t_abort "setup: \$NETNS_WHY"
out=\$(cs load "\$VB" --cpus 0 2>&1) || t_abort "cpusteer load failed: \$out"
bg_b sleep 600
[ -d "\$PINS" ] && LOADED=1 || LOADED=0
echo "NSA=\$NSA NSB=\$NSB VA=\$VA VB=\$VB PINS=\$PINS BG=\$BG_PID TMPD=\$NETNS_TMP LOADED=\$LOADED" \
	>"$T_TMP/$1/state"
t_begin fixture_$2
case $2 in
fail) t_fail "failing on purpose"; t_end ;;
exit) exit 1 ;;
hang) sleep 600 ;;
esac
t_exit
EOF
}

# What a fixture run left behind, one per line; none when it cleaned up.
leftovers() {	# STATE
	# shellcheck disable=SC2034 # all set by the state file
	local NSA NSB VA VB PINS BG TMPD LOADED

	# shellcheck disable=SC1090
	. "$1"
	ip netns list | awk '{ print $1 }' | grep -xE "$NSA|$NSB" | sed 's/^/namespace /'
	ip -o link show | grep -oE "($VA|$VB)[@:]" | sed 's/^/link /'
	[ -e "$PINS" ] && echo "pin folder $PINS"
	kill -0 "$BG" 2>/dev/null && echo "process $BG"
	[ -e "$TMPD" ] && echo "scratch directory $TMPD"
}

# Removes what a fixture left, so a failure here does not spill over.
scrub() {	# STATE
	# shellcheck disable=SC2034 # all set by the state file
	local NSA NSB VA VB PINS BG TMPD LOADED

	[ -s "$1" ] || return 0
	# shellcheck disable=SC1090
	. "$1"
	kill "$BG" 2>/dev/null
	[ -d "$PINS" ] && { nsenter --net="/run/netns/$NSB" "$CPUSTEER" unload "$VB" \
		>/dev/null 2>&1; rm -rf "$PINS"; }
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$TMPD"
}

# The longest a fixture run took so far, in seconds: what this machine
# needs to set up namespaces and load cpusteer.
FIXTURE_SECONDS=0

fixture_check() {	# CASE HOW TOTALS [TIMEOUT]
	local state=$T_TMP/$1/state left start=$SECONDS

	fixture "$1" "$2"
	t_on_exit scrub "$state"
	runner "$1" "${4:-60}"
	[ $((SECONDS - start)) -le "$FIXTURE_SECONDS" ] || FIXTURE_SECONDS=$((SECONDS - start))
	expect_run "$3" nonzero
	if [ ! -s "$state" ]; then
		t_fail "the fixture did not get as far as loading cpusteer"
		return
	fi
	grep -q 'LOADED=1' "$state" || t_fail "no pin folder while cpusteer was loaded"
	left=$(leftovers "$state" | paste -sd ',')
	t_eq "left behind after the fixture ended" "" "$left"
}

netns_fixtures_clean_up_after_failing_test() {
	fixture_check failing fail "0 passed, 1 failed, 0 skipped"
}

netns_fixtures_clean_up_after_exit_in_middle() {
	fixture_check exiting exit "0 passed, 1 failed, 0 skipped"
}

# The timeout must fall after the fixture has loaded cpusteer, which takes
# a second here and many under emulation: it is scaled from the runs of the
# two fixtures before.
netns_fixtures_clean_up_after_timeout_term() {
	local limit=$((5 + 3 * FIXTURE_SECONDS))

	fixture_check hanging hang "0 passed, 1 failed, 0 skipped" "$limit"
	grep -qF "timed out after ${limit}s" "$RUN_OUT" || t_fail "the fixture did not time out"
}

# The tests, in order; t_plan_of makes the plan from this list.
all_tests() {
	t_run runner_counts_clean_file runner_counts_clean_file
	t_run runner_counts_missing_binary runner_counts_missing_binary
	t_run runner_kernel_run_skips_marked_files runner_kernel_run_skips_marked_files
	t_run runner_runs_marked_files_beside_the_others runner_runs_marked_files_beside_the_others
	t_run runner_short_suite_runs_only_listed_files runner_short_suite_runs_only_listed_files
	t_run runner_counts_signal_death runner_counts_signal_death
	t_run runner_counts_nonzero_exit runner_counts_nonzero_exit
	t_run runner_counts_timeout runner_counts_timeout
	t_run runner_keeps_a_files_own_time_limit runner_keeps_a_files_own_time_limit
	t_run runner_counts_fewer_results_than_planned runner_counts_fewer_results_than_planned
	t_run runner_counts_missing_plan runner_counts_missing_plan
	t_run runner_counts_bad_numbering runner_counts_bad_numbering
	t_run runner_counts_skip_after_failure_shell runner_counts_skip_after_failure_shell
	t_run runner_counts_skip_after_failure_c runner_counts_skip_after_failure_c
	t_run runner_counts_lib_exit_in_middle runner_counts_lib_exit_in_middle
	t_run netns_fixtures_clean_up_after_failing_test netns_fixtures_clean_up_after_failing_test
	t_run netns_fixtures_clean_up_after_exit_in_middle netns_fixtures_clean_up_after_exit_in_middle
	t_run netns_fixtures_clean_up_after_timeout_term netns_fixtures_clean_up_after_timeout_term
}

t_plan_of all_tests
# A run.sh that ignored SELFTEST_SRC would run the real suite, and this
# file again inside it: stop there instead of nesting.
[ -z "${SELFTEST_IN_HARNESS:-}" ] || t_abort "run by run.sh inside test_harness.sh: SELFTEST_SRC was ignored"
[ "$(id -u)" = 0 ] || t_skip_all "needs root"
[ -x "$CPUSTEER" ] || t_abort "$CPUSTEER is missing: run make"
all_tests
t_exit
