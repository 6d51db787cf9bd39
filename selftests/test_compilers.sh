#!/usr/bin/env bash
# The BPF objects built by every clang Debian ships, loaded and tested.
#
# A program that one compiler makes acceptable to the verifier can be
# refused when another compiler builds the same source (a packet pointer
# spilled and reloaded as a scalar, say): only loading tells. The main
# run tests what `make` built with the default clang; this file builds the
# tree again with each other compiler, into build/<compiler>, and runs the
# tests that load and drive the steering object there: the program tests,
# every selftests/test_steer_* program (each loads the object, so every
# program of it but the bound one is verified) and the distribution tests
# (their test object hashes with bpf/hash.h), classify, and the netns
# test of --hash nic for the program bound to a device.
#
#   CPUSTEER_COMPILERS   the compilers to try (default: clang-16 clang-19)
#   CPUSTEER_COMPILERS_LOAD_ONLY=1  only check that each tree's object
#                        loads (the kernel guests: whether a verifier takes
#                        an object is what depends on the kernel; how the
#                        programs behave is tested here on the host, and the
#                        full tests take many minutes under emulation)
#   --build              only build those trees, quietly (for runs that
#                        test them elsewhere: the kernel guests, which
#                        would take many minutes to compile under emulation)
#
# Time limit: 600 s: it builds the tree twice more and runs every program test with each build, which took 260 to 300 s beside the other files
# Runs beside the others: its trees are build/clang-*, its network namespaces are named by its PID, and its two minutes would otherwise leave a CPU idle
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir
compilers=${CPUSTEER_COMPILERS:-clang-16 clang-19}
# The program tests, by the names of their sources.
program_tests=()
for c in "$TU_TOP"/selftests/test_steer_*.c "$TU_TOP"/selftests/test_hash_distribution.c; do
	[ -e "$c" ] && program_tests+=("$(basename "$c" .c)")
done

# Starts tree OUT from the main build's loader objects that take no
# skeleton: none of them depends on the BPF compiler, and compiling them
# again took most of this file's time. Each comes with its dependency file,
# its paths moved into OUT, so make still rebuilds one whose sources are
# newer; what includes a skeleton is compiled in OUT, against OUT's
# objects. Objects OUT already has are left alone.
seed_tree() {	# OUT
	local out=$1 o d

	(cd "$TU_TOP" && find build/loader -name '*.o') | while read -r o; do
		d=${o%.o}.d
		[ -e "$TU_TOP/$d" ] && ! grep -q '\.skel\.h' "$TU_TOP/$d" || continue
		[ -e "$TU_TOP/$out/${o#build/}" ] && continue
		mkdir -p "$TU_TOP/$out/$(dirname "${o#build/}")" &&
			sed -E "s#(^| )build/#\1$out/#g" "$TU_TOP/$d" >"$TU_TOP/$out/${d#build/}" &&
			cp -p "$TU_TOP/$o" "$TU_TOP/$out/${o#build/}"
	done
}

# Builds (or brings up to date) both programs and the program tests with
# COMPILER's BPF objects in build/COMPILER (the nic-hash test's traffic
# comes from that tree's cpusteer-bench gen).
build_tree() {	# COMPILER LOG
	local out=build/$1 t targets=()

	seed_tree "$out"
	for t in "${program_tests[@]}"; do
		targets+=("$out/selftests/$t")
	done
	make -C "$TU_TOP" -s -j2 --no-print-directory OUT="$out" CLANG="$1" \
		"$out/cpusteer" "$out/cpusteer-bench" "${targets[@]}" >"$2" 2>&1 && return 0
	# A failed build must not leave an earlier build's programs to be run.
	(cd "$TU_TOP" && rm -f "$out/cpusteer" "$out/cpusteer-bench" "${targets[@]}")
	return 1
}

build_with() {	# COMPILER
	local log=$T_TMP/$1.build

	command -v "$1" >/dev/null || { t_skip "$1 is not installed (make setup installs it)"; return; }
	if ! build_tree "$1" "$log"; then
		t_fail "make CLANG=$1 failed"
		t_note_file "$log" make
	fi
}

# The output of a TAP test file judged as run.sh judges it: exit status 0
# and not one "not ok".
expect_tap_passes() {	# LOG STATUS WHAT
	local failed

	failed=$(grep -c '^not ok' "$1")
	t_eq "$3: exit status" 0 "$2"
	t_eq "$3: tests not ok" 0 "$failed"
	[ "$failed" = 0 ] || grep -A3 '^not ok' "$1" | head -n 12 | while IFS= read -r line; do
		t_fail "  $line"
	done
}

# Every program test, each judged alone; one that was not built fails,
# unless none was (no such compiler). With a HASH, the tests that choose
# none run under it instead of the default (steer_fixture.c).
program_tests_pass_with() {	# COMPILER [HASH]
	local dir=$TU_TOP/build/$1/selftests t log rc built=0

	[ ${#program_tests[@]} -gt 0 ] || { t_fail "no program tests (selftests/test_steer_*.c)"; return; }
	for t in "${program_tests[@]}"; do
		[ -x "$dir/$t" ] && built=$((built + 1))
	done
	[ "$built" -gt 0 ] || { t_skip "no $1 build"; return; }
	for t in "${program_tests[@]}"; do
		[ -x "$dir/$t" ] || { t_fail "$t: not built with $1"; continue; }
		log=$T_TMP/$1.$t
		CPUSTEER_TEST_HASH=${2:-} "$dir/$t" >"$log" 2>&1
		rc=$?
		expect_tap_passes "$log" "$rc" "$t built with $1${2:+, under $2}"
	done
}

# A shell test file run with COMPILER's cpusteer (and the cpusteer-bench
# beside it).
script_passes_with() {	# COMPILER SCRIPT
	local cs=$TU_TOP/build/$1/cpusteer log=$T_TMP/$1.$2 rc

	[ -x "$cs" ] || { t_skip "no $1 build"; return; }
	CPUSTEER=$cs bash "$TU_TOP/selftests/$2" >"$log" 2>&1
	rc=$?
	expect_tap_passes "$log" "$rc" "$2 with $1's cpusteer"
}

# Loading the skeleton verifies every program of the object; classify
# loads it and runs the sample capture through the steering program.
object_loads_with() {	# COMPILER
	local cs=$TU_TOP/build/$1/cpusteer log=$T_TMP/$1.load

	[ -x "$cs" ] || { t_skip "no $1 build"; return; }
	if ! { "$cs" sample-pcap "$T_TMP/$1.pcap" && "$cs" classify "$T_TMP/$1.pcap"; } >"$log" 2>&1; then
		t_fail "$1's object does not load or classify on this kernel"
		t_note_file "$log" classify
	fi
}

all_tests() {
	local c other_hash=siphash13

	for c in $compilers; do
		t_run "${c}_builds" build_with "$c"
		if [ -n "${CPUSTEER_COMPILERS_LOAD_ONLY:-}" ]; then
			t_run "${c}_object_loads" object_loads_with "$c"
			continue
		fi
		if [ -n "$other_hash" ]; then
			# The main run has every program test under the default
			# hash; the first other compiler's run has them under the
			# other family, so each family runs them all once.
			t_run "${c}_program_tests_pass_under_$other_hash" \
				program_tests_pass_with "$c" "$other_hash"
			other_hash=
		else
			t_run "${c}_program_tests_pass" program_tests_pass_with "$c"
		fi
		# classify loads the whole object and steers the sample capture
		# with it; what classify's options and output do is the same
		# whatever compiled the programs (test_classify_cli, in the main
		# run), and the program tests above hold each one's decisions.
		t_run "${c}_object_loads" object_loads_with "$c"
		# cpusteer_steer_nic loads only bound to a device, so neither the
		# program tests nor classify verify it: the netns test of --hash
		# nic loads it on a veth (and on a kernel without the kfunc checks
		# the refusal instead).
		t_run "${c}_nic_hash_passes" script_passes_with "$c" test_netns_nic_hash.sh
	done
}

if [ "${1:-}" = --build ]; then
	for c in $compilers; do
		command -v "$c" >/dev/null || continue
		build_tree "$c" "$T_TMP/$c.build" || { cat "$T_TMP/$c.build" >&2; exit 1; }
	done
	exit 0
fi
t_plan_of all_tests
[ "$(id -u)" = 0 ] || t_skip_all "needs root"
all_tests
t_exit
