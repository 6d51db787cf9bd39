#!/usr/bin/env bash
# Runs every selftest and adds up what they report, ending with the line
# "N passed, N failed, N skipped". Needs root.
#   selftests/run.sh [PATTERN]   only the test files whose path matches
#
# A total is only worth something if a test that did not run cannot pass
# for one that did. So the test files are found from the sources (every
# selftests/test_*.c must have its build/selftests/test_* program), each
# file's TAP output must open with its plan ("1..N") and hold exactly N
# numbered results, and each of these counts as failed, with a
# "not ok - FILE: why" line: a program that is not built, no plan, fewer
# results than planned (one failure for each missing), more results than
# planned, results out of order, and a timeout, a non-zero exit or a
# signal with no "not ok" to explain it.
#
# For testing this script (selftests/test_harness.sh):
#   SELFTEST_SRC      the test sources (selftests)
#   SELFTEST_BIN      the built test programs (build/selftests)
#   SELFTEST_TIMEOUT  seconds one file may run (300)
#
# A run on another kernel under emulation (selftests/kernels) is ten to
# thirty times slower, and CI's budget holds only what can differ between
# kernels there: with SELFTEST_KERNEL_RUN=1, a file whose source has a
# line "Not in kernel runs: WHY" is not run and counts as one skip, with
# WHY. KERNEL_SUITE=all (selftests/kernels/run.sh) runs those files too.
# With SELFTEST_ONLY=FILE, only the test files FILE names (one base name
# per line, `#` comments) are run at all: a kernel's short suite.
#
# A file whose source has a line "Time limit: N s: WHY" may run N seconds
# when that is more than SELFTEST_TIMEOUT: for a file whose work grows
# with the tree it tests (test_compilers builds it twice), not for one
# that has become slow.
#
# A file whose source has a line "Runs beside the others: WHY" starts at
# once, in the background, and runs beside the files before it; its
# output is shown and counted in its place, as if it had run there, and
# the files after it start once it has ended. For a long file that keeps
# to what it makes (its own build trees, network namespaces named by its
# own PID and their pins), which would otherwise leave a CPU idle for
# minutes of the run; the files before it must let it (no look at other
# namespaces' pins).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
pattern=${1:-}
src=${SELFTEST_SRC:-selftests}
bin=${SELFTEST_BIN:-build/selftests}
limit=${SELFTEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0

if [ "$(id -u)" != 0 ]; then
	echo "selftests: need root (BPF programs, network namespaces)" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
# BPF pins and some tests need bpffs; mount it when the machine has none.
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

# A failure of the file as a whole; with COUNT 0 only a note.
problem() {	# FILE COUNT WHY
	if [ "$2" -gt 0 ]; then
		echo "not ok - $1: $3"
		failed=$((failed + $2))
	else
		echo "# $1: $3"
	fi
}

re_plan='^1\.\.([0-9]+)([[:space:]]*#.*)?$'
re_result='^(not )?ok([[:space:]]+([0-9]+))?([[:space:]]|$)(.*)$'
re_skip='#[[:space:]]*[Ss][Kk][Ii][Pp]'

# Counts the TAP of one file that exited with STATUS after MS milliseconds.
tally() {	# FILE OUTPUT STATUS MS
	local t=$1 out=$2 rc=$3 ms=$4 line plan='' n=0 p=0 f=0 s=0 num bad='' missing=0 before lim

	lim=$(limit_of "$t")

	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ $re_plan ]]; then
			if [ -n "$plan" ]; then
				bad=${bad:-a second plan}
			else
				plan=${BASH_REMATCH[1]}
				[ "$n" = 0 ] || bad=${bad:-the plan came after $n results}
			fi
		elif [[ $line =~ $re_result ]]; then
			n=$((n + 1))
			num=${BASH_REMATCH[3]}
			if [ -n "${BASH_REMATCH[1]}" ]; then
				f=$((f + 1))
			elif [[ ${BASH_REMATCH[5]} =~ $re_skip ]]; then
				s=$((s + 1))
			else
				p=$((p + 1))
			fi
			if [ -z "$num" ]; then
				bad=${bad:-result $n has no number}
			elif [ "$num" != "$n" ]; then
				bad=${bad:-result $n is numbered $num}
			fi
		elif [[ $line == "Bail out!"* ]]; then
			bad=${bad:-it bailed out}
		fi
	done <"$out"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	before=$failed

	if [ -z "$plan" ]; then
		problem "$t" 1 "no plan (a line 1..N before the results)"
	elif [ "$n" -lt "$plan" ]; then
		missing=$((plan - n))
	elif [ "$n" -gt "$plan" ]; then
		problem "$t" 1 "$n results for a plan of $plan"
	fi
	[ -n "$bad" ] && problem "$t" 1 "$bad"
	# timeout says 124, or 137 when the command outlived the TERM too.
	# A file cut short fails once for each test it did not report, or
	# once if it reported them all and none failed.
	if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && [ "$ms" -ge $((lim * 1000 - 100)) ]; then
		if [ "$missing" -gt 0 ]; then
			problem "$t" "$missing" "timed out after ${lim}s; $missing of the $plan planned tests did not report"
		else
			problem "$t" $((f == 0 && failed == before)) "timed out after ${lim}s"
		fi
		return
	fi
	[ "$missing" -gt 0 ] &&
		problem "$t" "$missing" "$missing of the $plan planned tests did not report"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		# Counted once, unless the file already failed for another reason.
		if [ "$rc" -gt 128 ]; then
			problem "$t" $((failed == before)) "killed by signal $((rc - 128)) with no test failed"
		else
			problem "$t" $((failed == before)) "exited with status $rc with no test failed"
		fi
	fi
}

outs=$(mktemp -d) || problem "selftests" 1 "mktemp failed"
beside_of=()	# by a file's place in the run: the runner of one beside
# A run cut short stops the files beside it too: each runner's timeout,
# which passes the signal on to its file, then the runner.
stop_beside() {
	local pid

	for pid in "${beside_of[@]}"; do
		pkill -TERM -P "$pid"
		kill "$pid"
	done 2>/dev/null
}
trap 'stop_beside; rm -rf "$outs"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

tests=()
for c in "$src"/test_*.c; do
	[ -e "$c" ] || continue
	t=$bin/$(basename "$c" .c)
	[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
	tests+=("$t")
done
for t in "$src"/test_*.sh; do
	[ -e "$t" ] || continue
	[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
	tests+=("$t")
done
if [ -n "${SELFTEST_ONLY:-}" ]; then
	# Tested apart: in a pipeline only awk's status would count.
	[ -r "$SELFTEST_ONLY" ] || problem "selftests" 1 "cannot read SELFTEST_ONLY $SELFTEST_ONLY"
	only=$(sed 's/#.*//' "$SELFTEST_ONLY" 2>/dev/null | awk 'NF { print $1 }')
	# A name that matches no file is a list gone stale, not a pass.
	for name in $only; do
		[ -e "$src/$name.c" ] || [ -e "$src/$name.sh" ] ||
			problem "$name" 1 "named in $SELFTEST_ONLY but no such test file"
	done
	kept=()
	for t in "${tests[@]}"; do
		grep -qxF "$(basename "$t" .sh)" <<<"$only" && kept+=("$t")
	done
	echo "# the ${#kept[@]} test files $SELFTEST_ONLY names"
	tests=("${kept[@]}")
fi
[ ${#tests[@]} = 0 ] && problem "selftests" 1 "no test file matches '$pattern'"

# The WHY of a line "MARK: WHY" in a file's source, if it has one.
marked() {	# FILE MARK
	local source=$1

	[[ $source == "$bin"/* ]] && source=$src/${source#"$bin"/}.c
	sed -n "s/^[#/ *]*$2: \(.*\)\$/\1/p" "$source" 2>/dev/null | head -n 1
}

# The seconds FILE may run: SELFTEST_TIMEOUT, or its own longer limit.
limit_of() {	# FILE
	local own

	own=$(marked "$1" "Time limit")
	own=${own%% *}
	if [[ $own =~ ^[0-9]+$ ]] && [ "$own" -gt "$limit" ]; then
		echo "$own"
	else
		echo "$limit"
	fi
}

kernel_run_skip() {	# FILE
	[ "${SELFTEST_KERNEL_RUN:-}" = 1 ] && marked "$1" "Not in kernel runs"
}

# A file that exists and can run.
runnable() {	# FILE
	[ -f "$1" ] && [ -x "$1" ]
}

# FILE, with its output in OUT and "STATUS MILLISECONDS" in OUT.status.
run_file() {	# FILE OUT
	local start rc

	start=$(date +%s%N)
	timeout -k 30 "$(limit_of "$1")" "$1" >"$2" 2>&1 </dev/null
	rc=$?
	echo "$rc $((($(date +%s%N) - start) / 1000000))" >"$2.status"
}

# The files that run beside the others start now; the n-th file's output
# goes to $outs/n, whichever way it runs.
i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	if [ -z "$(kernel_run_skip "$t")" ] && runnable "$t" &&
		[ -n "$(marked "$t" "Runs beside the others")" ]; then
		run_file "$t" "$outs/$i" &
		beside_of[i]=$!
	fi
done

i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	out=$outs/$i
	echo "# $t"
	if why=$(kernel_run_skip "$t") && [ -n "$why" ]; then
		echo "ok - $t # SKIP not in kernel runs: $why"
		skipped=$((skipped + 1))
		continue
	fi
	if [ ! -e "$t" ]; then
		problem "$t" 1 "not built (run make)"
		continue
	elif ! runnable "$t"; then
		problem "$t" 1 "not an executable file"
		continue
	fi
	if [ -n "${beside_of[i]:-}" ]; then
		wait "${beside_of[i]}"	# started before the loop
	else
		run_file "$t" "$out"
	fi
	read -r rc ms <"$out.status"
	cat "$out"
	[ -n "$(tail -c 1 "$out")" ] && echo
	tally "$t" "$out" "$rc" "$ms"
	# Where the time goes, for keeping the suite (and its runs on other
	# kernels under emulation) within CI's budget.
	printf '# %s: %d.%d s\n' "$t" $((ms / 1000)) $((ms % 1000 / 100))
	rm -f "$out" "$out.status"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
