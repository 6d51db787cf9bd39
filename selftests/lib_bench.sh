# shellcheck shell=bash
# Shared by the bench tests (selftests/test_bench*.sh): starting a run in
# the background and checking that it left nothing behind. `cpusteer-bench
# bench` and `cpusteer-bench demo` name their test bed after their own pid:
# namespace csb<pid>, host end csbA<pid>, receiver csbB<pid>.

# shellcheck source=selftests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Names the run with pid $1 would have left behind, one per line.
leftovers() {	# PID
	ip netns list | awk '{ print $1 }' | grep -x "csb$1"
	ip -o link show | grep -o "csbA$1[@:]"
	ls -d /sys/fs/bpf/cpusteer/ns*/csbB"$1" 2>/dev/null
}

expect_clean() {	# PID WHAT
	local left

	left=$(leftovers "$1" | tr '\n' ' ')
	[ -z "$left" ] || t_fail "$2 left behind: $left"
}

# Starts CMD in the background and records its pid (the test bed's
# names contain it), its output and its exit status.
run_bg() {	# OUT CMD...
	local out=$1

	shift
	"$@" >"$out" 2>&1 &
	BG_PID=$!
}

# Waits up to 10 s, while the command run_bg started runs, for a line
# matching ERE in its output FILE.
wait_for_line() {	# FILE ERE
	local _

	for _ in $(seq 100); do
		grep -Eq "$2" "$1" && return 0
		kill -0 "$BG_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Runs `cpusteer-bench bench ARGS...` to its end with its output in OUT
# and its pid (for the cleanup check) in BENCH_PID. Its exit status must
# be 0; the output is shown when it is not.
bench_to_end() {	# OUT ARGS...
	local out=$1 rc

	shift
	run_bg "$out" "$CPUSTEER_BENCH" bench "$@"
	BENCH_PID=$BG_PID
	wait "$BENCH_PID"
	rc=$?
	t_eq "exit status of cpusteer-bench bench" 0 "$rc"
	[ "$rc" = 0 ] || t_note_file "$out" output
}
