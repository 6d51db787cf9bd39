#!/usr/bin/env bash
# Follows the suite's log of one guest while the guest writes it, and
# prints a line as soon as each test file's result is in: its counts, its
# own time and the time since the guest booted. A suite under emulation
# takes half an hour; its results would otherwise show only at the end.
# Ends when process PID (the guest's QEMU) does.
#
#   selftests/kernels/stream_results.sh NAME LOG PID
#
# The lines start with "#", so they add nothing to the totals that
# selftests/kernels/run.sh counts from the whole log at the end.
set -u
name=$1 log=$2 pid=$3
# The same forms selftests/run.sh reads and writes.
re_result='^(not )?ok([[:space:]]+([0-9]+))?([[:space:]]|$)(.*)$'
re_skip='#[[:space:]]*[Ss][Kk][Ii][Pp]'
re_header='^# ([^ ]+)$'
re_time='^# ([^ ]+): ([0-9]+\.[0-9]) s$'
start=$SECONDS

since_boot() {
	local s=$((SECONDS - start))

	printf '%d min %02d s' $((s / 60)) $((s % 60))
}

file='' passed=0 failed=0 skipped=0
# tail -F: the guest makes the log only once it has booted.
while IFS= read -r line; do
	if [[ $line =~ $re_header ]]; then
		file=${BASH_REMATCH[1]} passed=0 failed=0 skipped=0
	elif [ -z "$file" ]; then
		continue
	elif [[ $line == "ok - $file # SKIP not in kernel runs"* ]]; then
		echo "# $name: ${file##*/}: not in kernel runs; $(since_boot) since boot"
		file=''
	elif [[ $line =~ $re_time ]] && [ "${BASH_REMATCH[1]}" = "$file" ]; then
		echo "# $name: ${file##*/}: $passed passed, $failed failed, $skipped skipped in ${BASH_REMATCH[2]} s; $(since_boot) since boot"
		file=''
	elif [[ $line =~ $re_result ]]; then
		if [ -n "${BASH_REMATCH[1]}" ]; then
			failed=$((failed + 1))
		elif [[ ${BASH_REMATCH[5]} =~ $re_skip ]]; then
			skipped=$((skipped + 1))
		else
			passed=$((passed + 1))
		fi
	fi
done < <(tail -n +1 -F --pid="$pid" "$log" 2>/dev/null)
