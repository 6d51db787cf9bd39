# shellcheck shell=bash
# The one reporting library of the shell selftests, in TAP, so that
# selftests/run.sh can tell a test that passed from one that never ran.
#
#   t_plan NAME...          first: prints "1..N"; the plan is this list
#   t_begin NAME ... t_end  one test, in plan order; t_fail/t_eq/t_ne/t_ge
#                           record failures and let it go on
#   t_run NAME CMD [ARGS]   t_begin NAME; CMD ARGS; t_end
#   t_plan_of FUNCTION      the plan is the t_run calls of FUNCTION, which
#                           holds nothing else; then call FUNCTION to run them
#   t_skip WHY              ends the test as skipped, or as "not ok" when
#                           it already failed: a skip must not hide that
#   t_abort WHY             every test not yet reported fails; exit 1
#   t_skip_all WHY          every test not yet reported is skipped; exit 0
#   t_exit                  the end of the script
#
# Every exit path is covered: `exit` anywhere, a signal (run.sh's timeout
# sends TERM) or the end of the script runs the t_on_exit commands
# (newest first), then reports a test left open and the planned tests
# that did not run as failed, and exits non-zero when anything failed.

TU_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CPUSTEER=${CPUSTEER:-$TU_TOP/build/cpusteer}
# The bench's program, beside the cpusteer it drives: it runs no other.
CPUSTEER_BENCH=${CPUSTEER_BENCH:-$(dirname "$CPUSTEER")/cpusteer-bench}
T_PLAN=()		# the planned test names, in order
T_DONE=0		# tests reported so far
T_NAME=			# the open test, or the last one (for "# NAME: ..." lines after it)
T_OPEN=			# 1 while a test is open
T_NOTES=0		# failures recorded in the open test
T_FAILED=0		# tests reported "not ok"
T_STRAY=0		# failures recorded outside any test
T_TMP=
_t_on_exit=()
_t_shell=$BASHPID		# the script's own shell, not a subshell of it
_t_listing=			# set while t_plan_of lists the t_run calls
_t_listed=()

# A failure recorded outside a test still fails the script: its exit
# status goes non-zero, which run.sh counts.
t_fail() {	# MESSAGE...
	echo "#   $*"
	if [ "$T_OPEN" = 1 ]; then
		T_NOTES=$((T_NOTES + 1))
	else
		T_STRAY=$((T_STRAY + 1))
	fi
}

t_eq() {	# WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || t_fail "$1: expected '$2', got '$3'"
}

t_ne() {	# WHAT UNEXPECTED ACTUAL
	[ "$2" != "$3" ] || t_fail "$1: expected anything but '$2'"
}

t_ge() {	# WHAT MINIMUM ACTUAL
	if ! [ "$3" -ge "$2" ] 2>/dev/null; then
		t_fail "$1: expected at least $2, got '$3'"
	fi
}

# The first lines of a file as failures, for context.
t_note_file() {	# FILE LABEL
	local line n=0

	while IFS= read -r line && [ $n -lt 5 ]; do
		t_fail "  $2: $line"
		n=$((n + 1))
	done <"$1"
}

# One result line; the number is the position in the plan.
_t_report() {	# ok|not-ok NAME [DIRECTIVE]
	T_DONE=$((T_DONE + 1))
	if [ "$1" = ok ]; then
		echo "ok $T_DONE - $2${3:+ # $3}"
	else
		echo "not ok $T_DONE - $2"
		T_FAILED=$((T_FAILED + 1))
	fi
}

# Fails every planned test from the current position on.
_t_fail_rest() {	# WHY
	while [ "$T_DONE" -lt "${#T_PLAN[@]}" ]; do
		echo "#   $1"
		_t_report not-ok "${T_PLAN[$T_DONE]}"
	done
}

# A signal ends the script through the EXIT trap, so it cleans up too;
# so does a write to a pipe whose reader has gone.
_t_traps() {
	trap _t_exit_trap EXIT
	trap 'exit 130' INT
	trap 'exit 141' PIPE
	trap 'exit 143' TERM HUP
}

t_plan() {	# NAME...
	T_PLAN=("$@")
	echo "1..${#T_PLAN[@]}"
	_t_traps
}

t_begin() {	# NAME
	local i

	if [ "$T_OPEN" = 1 ]; then
		t_fail "$T_NAME did not end before $1 began"
		t_end
	fi
	if [ "${T_PLAN[$T_DONE]:-}" != "$1" ]; then
		# A test further down the plan: the ones before it did not run.
		for ((i = T_DONE + 1; i < ${#T_PLAN[@]}; i++)); do
			[ "${T_PLAN[$i]}" = "$1" ] || continue
			while [ "$T_DONE" -lt "$i" ]; do
				echo "#   not run: the script went on to $1"
				_t_report not-ok "${T_PLAN[$T_DONE]}"
			done
			break
		done
	fi
	T_NAME=$1
	T_OPEN=1
	T_NOTES=0
	if [ "${T_PLAN[$T_DONE]:-}" != "$1" ]; then
		t_fail "$1 is not the next test in the plan (${T_PLAN[$T_DONE]:-none is left})"
	fi
}

t_end() {
	[ "$T_OPEN" = 1 ] || return 0
	if [ "$T_NOTES" -gt 0 ]; then
		_t_report not-ok "$T_NAME"
	else
		_t_report ok "$T_NAME"
	fi
	T_OPEN=
}

t_skip() {	# WHY...
	[ "$T_OPEN" = 1 ] || { t_fail "t_skip outside a test: $*"; return; }
	if [ "$T_NOTES" -gt 0 ]; then
		echo "#   skipped after failing: $*"
		_t_report not-ok "$T_NAME"
	else
		_t_report ok "$T_NAME" "SKIP $*"
	fi
	T_OPEN=
}

t_run() {	# NAME COMMAND [ARGS...]
	if [ -n "$_t_listing" ]; then
		_t_listed+=("$1")
		return 0
	fi
	t_begin "$1"
	shift
	"$@"
	t_end
}

# Lists the tests once, so the plan and the runs cannot disagree.
t_plan_of() {	# FUNCTION
	_t_listed=()
	_t_listing=1
	"$1"
	_t_listing=
	t_plan "${_t_listed[@]}"
}

t_abort() {	# WHY
	if [ "$T_OPEN" = 1 ]; then
		t_fail "$1"
		t_end
	fi
	_t_fail_rest "$1"
	exit 1
}

t_skip_all() {	# WHY
	if [ "$T_OPEN" = 1 ]; then
		t_skip "$1"
	fi
	while [ "$T_DONE" -lt "${#T_PLAN[@]}" ]; do
		_t_report ok "${T_PLAN[$T_DONE]}" "SKIP $1"
	done
	exit 0
}

t_exit() {
	exit 0
}

# Runs COMMAND... when the script ends, however it ends.
t_on_exit() {	# COMMAND...
	_t_on_exit+=("$*")
	_t_traps
}

# A scratch directory, $T_TMP, removed when the script ends.
t_tmpdir() {
	T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpusteer-selftest.$$.XXXXXX") || t_abort "mktemp failed"
	# shellcheck disable=SC2016 # expanded when the script ends
	t_on_exit 'rm -rf "$T_TMP"'
}

# What the kernel's netdev generic netlink family offers for NAPI, as
# genl lists its commands by number (NAPI_GET is 11, NAPI_SET 14): none,
# get or set; empty when genl (iproute2) is missing. Asked of the kernel
# through another tool, not of cpusteer, whose own probe is under test.
genl_napi_netlink() {
	local ops

	command -v genl >/dev/null || return 0
	ops=$(genl ctrl get name netdev 2>/dev/null |
		sed -n '/commands supported/,/multicast groups/s/.*ID-\(0x[0-9a-f]*\).*/\1/p')
	if grep -qx 0xe <<<"$ops"; then
		echo set
	elif grep -qx 0xb <<<"$ops"; then
		echo get
	else
		echo none
	fi
}

# shellcheck disable=SC2317 # run by the EXIT trap
_t_exit_trap() {
	local rc=$? i

	trap - INT TERM HUP
	# A child forked for `cmd &` runs these traps if a signal comes
	# before it execs (netns_cleanup kills background commands at once):
	# it must neither report nor clean up.
	[ "$BASHPID" = "$_t_shell" ] || exit "$rc"
	# Clean up first, and survive a reader that is gone (a pipe whose
	# reader the same signal killed): a write must not end the cleanup.
	trap '' PIPE
	for ((i = ${#_t_on_exit[@]} - 1; i >= 0; i--)); do
		eval "${_t_on_exit[$i]}"
	done
	[ "$rc" = 141 ] && exit "$rc"	# SIGPIPE: nobody reads the report
	if [ "$T_OPEN" = 1 ]; then
		t_fail "the script ended (status $rc) inside this test"
		t_end
	fi
	_t_fail_rest "not run: the script ended (status $rc) before this test"
	if [ "$rc" = 0 ] && { [ "$T_FAILED" -gt 0 ] || [ "$T_STRAY" -gt 0 ]; }; then
		exit 1
	fi
	exit "$rc"
}
