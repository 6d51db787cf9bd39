#!/usr/bin/env bash
# Runs every selftest: the C programs in build/selftests/ (program-level,
# BPF_PROG_TEST_RUN) and the selftests/test_*.sh scripts (CLI and network
# namespaces). Each test prints "ok - NAME", "not ok - NAME" or
# "skip - NAME: why"; this script counts them and ends with the line
# "N passed, N failed, N skipped". Needs root.
#   selftests/run.sh [PATTERN]   run only tests whose file name matches
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
pattern=${1:-}
passed=0 failed=0 skipped=0

if [ "$(id -u)" != 0 ]; then
	echo "selftests: need root (BPF programs, network namespaces)" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
# BPF pins and some tests need bpffs; mount it when the machine has none.
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

count() {
	local out=$1 rc=$2 name=$3 p f s
	# "ok - NAME" or, from the C tests, the TAP "ok I - NAME [# SKIP why]".
	p=$(grep -E '^ok( [0-9]+)? - ' "$out" | grep -vc '# SKIP')
	f=$(grep -Ec '^not ok( [0-9]+)? - ' "$out")
	s=$(( $(grep -c '^skip - ' "$out") + $(grep -E '^ok( [0-9]+)? - ' "$out" | grep -c '# SKIP') ))
	# A test program that dies without reporting a failure still failed.
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name: exited with status $rc"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

tests=()
for t in build/selftests/test_* selftests/test_*.sh; do
	[ -e "$t" ] || continue
	case $t in *.c|*.h) continue ;; esac
	[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
	tests+=("$t")
done

for t in "${tests[@]}"; do
	echo "# $t"
	out=$(mktemp)
	timeout 300 "$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	count "$out" "$rc" "$t"
	rm -f "$out"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
