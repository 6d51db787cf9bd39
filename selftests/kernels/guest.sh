#!/bin/bash
# Runs inside a test guest booted by selftests/kernels/run.sh, as the one
# program of guest_init (PID 1). The root is the host's, read-only under a
# tmpfs overlay; this script gives it what a booted system has, records
# what the kernel offers, runs the selftests of this checkout and leaves
# everything in the host folder shared as "out":
#   features   what the kernel offers, as `key: value` lines
#   suite.log  the selftests' output (its last line is the total)
#   status     the exit status of selftests/run.sh
#   dmesg      the kernel's log at the end, without timestamps
# Settings come from the kernel command line, as environment variables:
#   checkout=PATH          the checkout whose build is tested
#   guest_tests=PATTERN    only the test files matching PATTERN
#   guest_suite=all        also the files marked "Not in kernel runs"
#   guest_suite=short      only the files selftests/kernels/short-suite names
#   guest_command=CMD      a shell command to run in the checkout instead
#                          of the suite (a bench run, one tool by hand);
#                          its output goes to command.log
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LC_ALL=C.UTF-8
# Emulation makes everything 10-30 times slower than on the host: a test
# file gets that much more time before selftests/run.sh calls it hung.
export SELFTEST_TIMEOUT=1200
# The other compilers' objects are loaded (what depends on the kernel), not
# tested through again (what depends on the compiler, done on the host).
export CPUSTEER_COMPILERS_LOAD_ONLY=1
[ "${guest_suite:-}" = all ] || export SELFTEST_KERNEL_RUN=1
[ "${guest_suite:-}" = short ] && export SELFTEST_ONLY=selftests/kernels/short-suite

mount -t proc proc /proc
# The checkout may lie in a folder that gets a fresh tmpfs below (a clone
# in /tmp or /run): a bind mount holds it, and goes back to its own path
# once the other mounts are made.
mkdir -p /mnt/checkout
mount --bind "$checkout" /mnt/checkout || exit 1
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# What udev would add: bash's process substitution, <(...), opens /dev/fd/N.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mkdir -p "$checkout"
mount --move /mnt/checkout "$checkout" || exit 1
# The host's /lib/modules has no modules for this kernel: the package's
# own are shared, so that modprobe (and the kernel's own module requests,
# e.g. for veth) find them.
modules=/lib/modules/$(uname -r)
mkdir -p "$modules" /mnt/out
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 modules "$modules"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /mnt/out
hostname cpusteer-guest
ip link set lo up

# PREEMPT_RT shows in the version string; a dynamic kernel says which
# model it runs in debugfs, the current one in parentheses.
preempt_model() {
	local v
	v=$(uname -v)
	case $v in
	*PREEMPT_RT*) echo rt; return ;;
	esac
	if [ -r /sys/kernel/debug/sched/preempt ]; then
		sed -n 's/.*(\([a-z]*\)).*/\1 (dynamic)/p' /sys/kernel/debug/sched/preempt
	elif [[ $v == *PREEMPT_DYNAMIC* ]]; then
		echo "dynamic (mode unreadable)"
	elif [[ $v == *PREEMPT* ]]; then
		echo full
	else
		echo none
	fi
}

cd "$checkout" || exit 1
{
	echo "kernel: $(uname -r)"
	echo "preempt: $(preempt_model)"
	echo "status: $(build/cpusteer status --json)"
} > /mnt/out/features

if [ -n "${guest_command:-}" ]; then
	bash -c "$guest_command" 2>&1 | tee /mnt/out/command.log
	echo "${PIPESTATUS[0]}" > /mnt/out/status
else
	selftests/run.sh ${guest_tests:+"$guest_tests"} 2>&1 | tee /mnt/out/suite.log
	echo "${PIPESTATUS[0]}" > /mnt/out/status
fi
dmesg --notime > /mnt/out/dmesg
sync
