# shellcheck shell=bash
# Shared helpers for the shell selftests. Source it, define one function
# per behaviour, and run each with `run_test NAME FUNCTION [ARGS]`. Each
# test prints one line that selftests/run.sh counts:
#   ok - NAME
#   not ok - NAME      followed by "#   ..." lines: what was expected, what came
#   skip - NAME: why
# End the script with `tu_exit`, which exits non-zero if any test failed.
# Test functions run in the calling shell (not a subshell), so what they
# note reaches run_test.

TU_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CPUSTEER=${CPUSTEER:-$TU_TOP/build/cpusteer}
TU_FAILED=0
_tu_notes=()
_tu_skip=

# A scratch directory for this run, removed on exit however the script ends.
tu_tmpdir() {
	TU_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpusteer-selftest.$$.XXXXXX") || exit 1
	trap 'rm -rf "$TU_TMP"' EXIT
}

# Records a failure of the current test; it goes on running.
fail() {
	_tu_notes+=("$*")
}

# Marks the current test skipped; the caller returns right after.
skip() {
	_tu_skip=$*
}

expect_eq() {	# ACTUAL EXPECTED WHAT
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

expect_ne() {	# ACTUAL UNEXPECTED WHAT
	[ "$1" != "$2" ] || fail "$3: expected anything but '$2'"
}

# Appends the first lines of a file to the notes, for context.
note_file() {	# FILE LABEL
	local line n=0

	while IFS= read -r line && [ $n -lt 5 ]; do
		fail "  $2: $line"
		n=$((n + 1))
	done <"$1"
}

run_test() {	# NAME FUNCTION [ARGS...]
	local name=$1 note

	shift
	_tu_notes=()
	_tu_skip=
	"$@"
	if [ -n "$_tu_skip" ]; then
		echo "skip - $name: $_tu_skip"
	elif [ ${#_tu_notes[@]} -gt 0 ]; then
		echo "not ok - $name"
		for note in "${_tu_notes[@]}"; do
			echo "#   $note"
		done
		TU_FAILED=$((TU_FAILED + 1))
	else
		echo "ok - $name"
	fi
}

tu_exit() {
	[ "$TU_FAILED" = 0 ] && exit 0
	exit 1
}
