#!/usr/bin/env bash
# The two programs: cpusteer, the operator's, holds no code of the bench
# and lists none of its commands, and tells an old command line where
# they went; cpusteer-bench holds bench, demo and gen, and drives only
# the cpusteer beside it, never one found through PATH, a link or a file
# that another user could have put there.
#
# Not in kernel runs: no kernel in it, the same binaries on every kernel
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir
BENCH_COMMANDS="bench demo gen"
OBJS=$(dirname "$CPUSTEER")/loader/bench

# The commands a program's --help lists, space-separated.
commands_of() {	# PROGRAM
	"$1" --help | awk '/^  [a-z]/ { printf "%s%s", sep, $1; sep = " " }'
}

# Every external symbol an object of loader/bench/ defines (but main,
# which cpusteer has its own of) is absent from cpusteer's.
test_operator_links_no_bench_code() {
	local defined linked

	defined=$(nm --defined-only -g "$OBJS"/*.o 2>/dev/null |
		awk 'NF == 3 && $3 != "main" { print $3 }' | sort -u)
	t_ge "external symbols of $OBJS/*.o (built by make)" 50 "$(grep -c . <<<"$defined")"
	linked=$(nm --defined-only -g "$CPUSTEER" | awk 'NF == 3 { print $3 }' | sort -u)
	t_eq "symbols of loader/bench/ in $CPUSTEER" "" \
		"$(comm -12 <(echo "$defined") <(echo "$linked") | head -n 10 | tr '\n' ' ')"
}

test_operator_lists_no_bench_command() {
	local c listed words

	listed=" $(commands_of "$CPUSTEER") "
	[[ $listed == *" load "* ]] || t_fail "cpusteer --help lists no load: $listed"
	words=" $("$CPUSTEER" --bash-completion | sed -n 's/.*compgen -W "--help \([^"]*\)".*/\1/p' | head -n 1) "
	for c in $BENCH_COMMANDS; do
		[[ $listed != *" $c "* ]] || t_fail "cpusteer --help lists $c"
		[[ $words != *" $c "* ]] || t_fail "cpusteer's completion offers $c"
	done
}

test_moved_commands_say_where() {
	local c rc

	for c in $BENCH_COMMANDS; do
		"$CPUSTEER" "$c" --help >"$T_TMP/out" 2>"$T_TMP/err"
		rc=$?
		t_eq "exit status of cpusteer $c --help" 2 "$rc"
		t_eq "stdout of cpusteer $c --help" "" "$(cat "$T_TMP/out")"
		t_eq "stderr of cpusteer $c --help" \
			"cpusteer: $c moved to a program of its own: run cpusteer-bench $c" \
			"$(cat "$T_TMP/err")"
	done
}

# Its own and version, which both programs have.
test_bench_lists_exactly_its_commands() {
	t_eq "commands cpusteer-bench --help lists" "$BENCH_COMMANDS version" \
		"$(commands_of "$CPUSTEER_BENCH")"
	t_eq "first line of cpusteer-bench bench --help" \
		"usage: cpusteer-bench bench [OPTIONS]" "$("$CPUSTEER_BENCH" bench --help | head -n 1)"
}

# demo in DIR, with a cpusteer on PATH that would leave a mark: it must
# stop with one line that WANT matches and exit 1, before its test bed
# (whose first line on stdout says what it built).
expect_demo_refused() {	# DIR WANT WHAT
	local rc err

	PATH="$T_TMP/decoy:$PATH" "$1/cpusteer-bench" demo --duration 1 >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	err=$(cat "$T_TMP/err")
	t_eq "$3: exit status" 1 "$rc"
	t_eq "$3: lines on stderr" 1 "$(wc -l <"$T_TMP/err")"
	[[ $err =~ $2 ]] || t_fail "$3: stderr '$err' does not match '$2'"
	t_eq "$3: stdout" "" "$(cat "$T_TMP/out")"
	[ ! -e "$T_TMP/decoy-ran" ] || t_fail "$3: the cpusteer on PATH ran"
}

test_bench_runs_only_the_cpusteer_beside_it() {
	local dir=$T_TMP/alone

	[ "$(id -u)" = 0 ] || { t_skip "needs root (demo refuses to run otherwise)"; return; }
	mkdir -p "$T_TMP/decoy" "$dir" || { t_fail "mkdir failed"; return; }
	printf '#!/bin/sh\ntouch %s/decoy-ran\n' "$T_TMP" >"$T_TMP/decoy/cpusteer"
	chmod 755 "$T_TMP/decoy/cpusteer"
	cp "$CPUSTEER_BENCH" "$dir/" || { t_fail "cannot copy $CPUSTEER_BENCH"; return; }

	expect_demo_refused "$dir" "^cpusteer: cannot run cpusteer: $dir/cpusteer: No such file" \
		"no cpusteer beside it"
	ln -s "$CPUSTEER" "$dir/cpusteer"
	expect_demo_refused "$dir" "^cpusteer: will not run cpusteer: $dir/cpusteer is not a regular file \\(a symbolic link\\)" \
		"a link beside it"
	rm "$dir/cpusteer" && cp "$CPUSTEER" "$dir/cpusteer" && chmod 775 "$dir/cpusteer"
	expect_demo_refused "$dir" "^cpusteer: will not run cpusteer: users other than its owner may write $dir/cpusteer \\(mode 775\\)" \
		"a cpusteer others may write"
	chmod 755 "$dir/cpusteer" && chown nobody "$dir/cpusteer"
	expect_demo_refused "$dir" "^cpusteer: will not run cpusteer: $dir/cpusteer belongs to uid [0-9]+, neither root nor the owner of cpusteer-bench" \
		"another user's cpusteer"
	chown root "$dir/cpusteer" && chmod 777 "$dir"
	expect_demo_refused "$dir" "^cpusteer: will not run cpusteer: users other than its owner may write $dir \\(mode 777\\)" \
		"a folder others may write"
}

all_tests() {
	t_run operator_links_no_bench_code test_operator_links_no_bench_code
	t_run operator_lists_no_bench_command test_operator_lists_no_bench_command
	t_run moved_commands_say_where test_moved_commands_say_where
	t_run bench_lists_exactly_its_commands test_bench_lists_exactly_its_commands
	t_run bench_runs_only_the_cpusteer_beside_it test_bench_runs_only_the_cpusteer_beside_it
}

t_plan_of all_tests
all_tests
t_exit
