#!/usr/bin/env bash
# Runs the selftests of this checkout on other kernels: each kernel
# package is booted under QEMU (software emulation, no KVM needed) with the
# host's root as its userland, and the suite runs inside against this
# checkout's build. Prints one "KERNEL: N passed, N failed, N skipped" line
# per kernel and the total last, and on the way, as each guest finishes a
# test file, a "# KERNEL: FILE: ..." line with its counts and the time
# since that guest booted. Needs root (as the suite does).
#
#   selftests/kernels/run.sh [PATTERN]   only the test files matching PATTERN
#
#   KERNEL="A.deb B.deb"  kernel packages to boot, each with the full
#                         kernel suite; by default the ones
#                         `scripts/setup.sh --kernels` fetched (6.12,
#                         6.12-rt, 6.1 and 6.1-rt; KERNEL_SET=6.1 only the
#                         last two),
#                         each with the suite its line of
#                         build/kernels/debs/current names:
#                           full   every file but those that cannot differ
#                                  between kernels or take too long under
#                                  emulation, which each say why and count
#                                  as one skip (SELFTEST_KERNEL_RUN in
#                                  selftests/run.sh)
#                           short  only the files selftests/kernels/short-suite
#                                  names, so that four kernels fit CI's time
#                                  (the 6.1 kernels beside 6.12)
#   KERNEL_SUITE=all      run every test file on every kernel
#   KERNEL_COMMAND=CMD    run CMD in the checkout instead of the suite
#                         (a bench, a tool by hand); its output is printed
#   KERNEL_APPEND=ARGS    more kernel command line (e.g. preempt=full)
#   KERNEL_TIMEOUT=S      seconds one boot may take, all included (3000)
#   KERNEL_CPUS=N         the guest's CPUs (2: the tests assume more than one)
#   KERNEL_JOBS=N         guests booted at once (2)
#   KERNEL_MEMORY=MiB     the guest's memory (3072; its tmpfs holds all writes)
#
# A boot that hangs, panics or ends without the suite's total counts as one
# failure. Everything a boot leaves is under build/kernels/PACKAGE/:
# console.log (the serial console, kernel messages included) and out/
# (features, suite.log or command.log, status).
set -u
# Package paths are the caller's, relative to where it stands.
debs=() suites=()
for deb in ${KERNEL:-}; do
	debs+=("$(readlink -f -- "$deb" || echo "$deb")")
done
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
pattern=${1:-}
base=build/kernels
limit=${KERNEL_TIMEOUT:-3000}
cpus=${KERNEL_CPUS:-2}
jobs=${KERNEL_JOBS:-2}
memory=${KERNEL_MEMORY:-3072}
init=$base/guest_init
passed=0 failed=0 skipped=0

die() {
	echo "test-kernels: $*" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

[ "$(id -u)" = 0 ] || die "need root (the suite in the guest loads BPF programs)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing: run scripts/setup.sh --kernels"
[ -x "$init" ] || die "$init is missing: run make test-kernels, which builds it"
# Everything below reaches the guest through its kernel command line,
# where a space or a quote would end the value.
for v in "$top" "$pattern" "${KERNEL_COMMAND:-}" "${KERNEL_APPEND:-}"; do
	case $v in
	*\"*) die "cannot pass '$v' to the guest: it holds a double quote" ;;
	esac
done
case $top in
*[[:space:]]*) die "cannot boot from $top: the checkout's path holds a space" ;;
esac
case ${KERNEL_SUITE:-} in
'' | all) ;;
*) die "bad KERNEL_SUITE '$KERNEL_SUITE': expected all or nothing" ;;
esac
for v in "$limit" "$cpus" "$jobs" "$memory"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "bad KERNEL_TIMEOUT/KERNEL_CPUS/KERNEL_JOBS/KERNEL_MEMORY '$v': not a positive number"
done

if [ ${#debs[@]} -gt 0 ]; then
	# Each package once: two boots of one package would share its folder.
	mapfile -t debs < <(printf '%s\n' "${debs[@]}" | awk '!seen[$0]++')
	for deb in "${debs[@]}"; do
		suites+=(full)
	done
else
	[ -r "$base/debs/current" ] || die "no kernel packages: run scripts/setup.sh --kernels $base/debs"
	# The full suites first: the short ones then fill the slots the
	# first long boot to finish frees, instead of a long one starting
	# last and alone.
	while read -r file suite; do
		case ${suite:-full} in
		full | short) ;;
		*) die "$base/debs/current: bad suite '$suite' for $file: expected full or short" ;;
		esac
		debs+=("$base/debs/$file")
		suites+=("${suite:-full}")
	done < <(awk 'NF { print ($2 == "short" ? 1 : 0), $0 }' "$base/debs/current" |
		sort -s -n -k1,1 | cut -d' ' -f2-)
fi

# Unpacks PACKAGE.deb and builds its initramfs, once per package file.
prepare() {	# DEB DIR
	local deb=$1 dir=$2 tmp mods stage
	if [ ! -e "$dir/ready" ]; then
		rm -rf "$dir"
		tmp=$dir.tmp
		rm -rf "$tmp"
		mkdir -p "$tmp" || return 1
		dpkg-deb -x "$deb" "$tmp/root" || return 1
		mods=$(echo "$tmp"/root/lib/modules/*)
		[ -d "$mods" ] || { echo "test-kernels: $deb holds no modules" >&2; return 1; }
		# The package's postinst would run depmod; the guest's modprobe
		# and the order below need its modules.dep.
		depmod -b "$tmp/root" "${mods##*/}" || return 1
		stage=$tmp/initramfs
		mkdir -p "$stage"/{dev,modules} || return 1
		cp "$init" "$stage/init" || return 1
		selftests/kernels/initramfs_modules.sh "$mods" "$stage" || return 1
		(cd "$stage" && find . | cpio -o -H newc --quiet) > "$tmp/initramfs.cpio" || return 1
		rm -rf "$stage"
		touch "$tmp/ready"
		mv "$tmp" "$dir" || return 1
	fi
}

# Boots one kernel package. Prints what went wrong, its kernel warnings
# and, last, "NAME: N passed, N failed, N skipped".
boot() {	# DEB SUITE
	local deb=$1 suite=$2 name dir out vmlinuz mods append qemu rc why='' total

	name=$(dpkg-deb -f "$deb" Package 2>/dev/null) || name=
	if ! [[ $name =~ ^[a-z0-9][a-z0-9.+-]*$ ]]; then
		echo "not ok - $deb: not a Debian package, or an odd package name '$name'"
		echo "$deb: 0 passed, 1 failed, 0 skipped"
		return
	fi
	dir=$base/$name
	if ! prepare "$deb" "$dir"; then
		echo "not ok - $name: cannot unpack it or build its initramfs"
		echo "$name: 0 passed, 1 failed, 0 skipped"
		return
	fi
	vmlinuz=$(echo "$dir"/root/boot/vmlinuz-*)
	mods=$(echo "$dir"/root/lib/modules/*)
	out=$dir/out
	# Nothing of an earlier boot may be read as this one's.
	rm -rf "$out" "$dir/console.log" "$dir/qemu.log"
	mkdir -p "$out"
	# no_timer_check: on a busy host the emulated CPU can miss the ticks
	# the kernel counts while checking the IO-APIC timer at boot, and it
	# then panics ("IO-APIC + timer doesn't work!"); seen here.
	append="console=ttyS0 loglevel=5 panic=-1 no_timer_check"
	append="$append guest_script=$top/selftests/kernels/guest.sh"
	append="$append checkout=$top"
	[ -n "$pattern" ] && append="$append guest_tests=\"$pattern\""
	if [ "${KERNEL_SUITE:-}" = all ]; then
		append="$append guest_suite=all"
		suite=all
	elif [ "$suite" = short ]; then
		append="$append guest_suite=short"
	fi
	[ -n "${KERNEL_COMMAND:-}" ] && append="$append guest_command=\"$KERNEL_COMMAND\""
	[ -n "${KERNEL_APPEND:-}" ] && append="$append $KERNEL_APPEND"
	# One host thread runs all of a guest's vCPUs (thread=single). With
	# a thread per vCPU, both 6.12 guests died of "Oops: int3" in two CI
	# runs out of two, at code the kernel patches live (the XDP
	# dispatcher, tracepoint static keys) as a cpumap kthread ran through
	# it; with one thread, full runs of both came through. Two guests
	# side by side still use both of CI's CPUs.
	timeout -k 10 "$limit" qemu-system-x86_64 -accel tcg,thread=single -cpu max \
		-smp "$cpus" -m "$memory" \
		-nodefaults -display none -no-reboot -serial "file:$dir/console.log" \
		-kernel "$vmlinuz" -initrd "$dir/initramfs.cpio" -append "$append" \
		-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$mods,mount_tag=modules,security_model=none,readonly=on" \
		-virtfs "local,path=$out,mount_tag=out,security_model=none" \
		</dev/null >"$dir/qemu.log" 2>&1 &
	qemu=$!
	watch_for_panic "$qemu" "$dir/console.log"
	if [ -n "${KERNEL_COMMAND:-}" ]; then
		echo "# $name: booted; live output in $out/command.log, console in $dir/console.log" >&8
	else
		echo "# $name: booted; live output in $out/suite.log, console in $dir/console.log" >&8
		selftests/kernels/stream_results.sh "$name" "$out/suite.log" "$qemu" >&8 &
	fi
	wait "$qemu"
	rc=$?
	# The last file's line before this boot's report.
	wait
	if [ -n "${KERNEL_COMMAND:-}" ]; then
		cat "$out/command.log" 2>/dev/null
	else
		grep -E '^not ok|# (SKIP|skip)' "$out/suite.log" 2>/dev/null | sed "s|^|# $name: |"
	fi
	total=$(tail -n 1 "$out/suite.log" 2>/dev/null)
	if grep -q 'Kernel panic' "$dir/console.log"; then
		why="the kernel panicked"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		why="no result within $limit s"
	elif [ ! -s "$out/status" ]; then
		why="the guest stopped before the end (qemu exit $rc; see $dir/qemu.log)"
	elif [ -n "${KERNEL_COMMAND:-}" ]; then
		[ "$(cat "$out/status")" = 0 ] && total="1 passed, 0 failed" || total="0 passed, 1 failed"
	elif ! [[ $total =~ $re_total ]]; then
		why="the suite printed no total"
	fi
	if [ -n "$why" ]; then
		echo "not ok - $name: $why; console in $dir/console.log"
		total="0 passed, 1 failed"
	fi
	report_features "$name" "$out/features"
	report_kernel_log "$name" "$out" "$dir/console.log"
	[[ $total =~ $re_total ]]
	[ -n "${KERNEL_COMMAND:-}" ] || name="$name ($suite suite)"
	echo "$name: ${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed, ${BASH_REMATCH[4]:-0} skipped"
}

# A kernel that panicked does not always get as far as powering off (one
# that panics before its timers work cannot): stop its QEMU at once rather
# than wait for the timeout. The watcher ends with QEMU.
watch_for_panic() {	# PID CONSOLE
	local pid=$1 console=$2

	(
		while kill -0 "$pid" 2>/dev/null; do
			if grep -q 'Kernel panic' "$console" 2>/dev/null; then
				sleep 2
				kill "$pid" 2>/dev/null
				break
			fi
			sleep 5
		done
	) 9>&- &
}

# What the guest found the kernel offers, in one line (the README's table
# of kernels comes from these).
report_features() {	# NAME FEATURES
	local kernel preempt status

	kernel=$(sed -n 's/^kernel: //p' "$2" 2>/dev/null)
	[ -n "$kernel" ] || return 0
	preempt=$(sed -n 's/^preempt: //p' "$2")
	status=$(sed -n 's/^status: //p' "$2")
	echo "# $1: $kernel, preempt $preempt, $(jq -r '.kernel |
		"cpumap GRO \(.cpumap_gro), NAPI netlink \(.napi_netlink), " +
		"tracepoints \([.tracepoints[] | select(.)] | length) of \(.tracepoints | length)"' <<< "$status")"
}

# Kernel warnings are not test failures, but they are what a kernel run
# is for: the guest's kernel log by kind, as the bench counts them. The
# console also holds the suite's output, which names these kinds too, so
# it is read only when the guest left no dmesg (it hung or panicked).
report_kernel_log() {	# NAME OUT CONSOLE
	local log=$2/dmesg from=dmesg kinds lines

	if [ ! -s "$log" ]; then
		log=$3 from="the console, suite output included"
	fi
	kinds=$(build/selftests/tools/kernel_log_kinds <"$log") || return
	echo "# $1: kernel log ($from): $(awk '$1 != "line" { printf "%s%s %s", s, $1, $2; s = ", " }' <<<"$kinds")"
	lines=$(sed -n 's/^line /#   /p' <<<"$kinds")
	[ -z "$lines" ] || echo "$lines"
}

re_total='^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
mkdir -p "$base"
# Two runs at once would share the unpacked kernels and their outputs.
exec 9>"$base/lock"
flock -n 9 || die "another test-kernels run is using $base"

# The guests run side by side: a test mostly keeps one CPU busy, so two
# guests of two CPUs each fill a host of two CPUs much better than one.
# Each boot's report waits for the end, to keep the boots' lines apart;
# what a guest finishes on the way goes to fd 8, the terminal, at once.
exec 8>&1
reports=()
for i in "${!debs[@]}"; do
	deb=${debs[i]}
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	reports+=("$(mktemp "$base/report.XXXXXX")")
	if [ -r "$deb" ]; then
		echo "# booting $deb (${suites[i]} suite)"
		boot "$deb" "${suites[i]}" > "${reports[-1]}" 2>&1 &
	else
		printf 'not ok - %s: no such file\n%s: 0 passed, 1 failed, 0 skipped\n' "$deb" "$deb" > "${reports[-1]}"
	fi
done
wait
for r in "${reports[@]}"; do
	cat "$r"
	if [[ $(tail -n 1 "$r") =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		skipped=$((skipped + BASH_REMATCH[3]))
	else
		echo "not ok - a boot left no result"
		failed=$((failed + 1))
	fi
	rm -f "$r"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
