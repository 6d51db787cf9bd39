#!/usr/bin/env bash
# The systemd units' capability bounding sets are enough: the commands of
# cpusteer@.service (load, set, unload, unload --stranded, with every
# device setting, in skb and native mode) and cpusteer-exporter.service's
# exporter (--once, --textfile, a scrape of --listen) run under exactly
# the set the installed unit gives (CapabilityBoundingSet=, read from the
# file make install writes, every other capability dropped by setpriv),
# and do what they do with every capability:
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   the exporter, reading B's instance    load, set, unload for vethB
#   through setns
#
# plus an instance in a namespace that only a process of user nobody
# holds (no name in /run/netns), which the exporter reaches through that
# process's /proc/PID/ns/net. Each runs with /proc and /sys as its unit
# has them. All of it traced, each unit's commands ask for no system
# call, socket family or namespace that the unit's sandbox refuses.
#
# Not in kernel runs: the capabilities a command needs do not change with the kernel here, and make writes to the tree (4 s on the host)
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_netns.sh"

LOADER=()		# the loader unit's sandbox, then the command
EXPORTER=()		# the exporter unit's

# The value of KEY= in the installed UNIT.
unit_value() {	# UNIT KEY
	sed -n "s/^$2=//p" "$NETNS_TMP/root/usr/lib/systemd/system/$1"
}

# Sets the array NAME to what runs a command under as much of UNIT's
# sandbox as can be had without systemd: a mount namespace of its own
# where, as the unit's lines say, /proc hides other users' processes
# (ProtectProc=invisible) and /sys, with the pins under it, is read-only
# (ProtectKernelTunables=yes), under the unit's UMask=; setpriv with the
# unit's capabilities alone, as root (the bounding set limits what an
# exec gives root, as CapabilityBoundingSet= does); then strace, which
# writes each system call to $NETNS_TMP/trace.NAME for
# test_sandbox_lets_through.
sandbox_of() {	# NAME UNIT
	local -n sandbox=$1
	local caps mounts=:

	caps=$(unit_value "$2" CapabilityBoundingSet | tr ' ' '\n' |
		sed -n 's/^CAP_\(.*\)/+\L\1/p' | paste -sd,)
	[ -n "$caps" ] || t_abort "$2 has no CapabilityBoundingSet="
	[ "$(unit_value "$2" ProtectProc)" = invisible ] &&
		mounts+=" && mount -t proc -o hidepid=invisible proc /proc"
	[ "$(unit_value "$2" ProtectKernelTunables)" = yes ] &&
		mounts+=" && mount -o remount,bind,ro /sys && mount -o remount,bind,ro /sys/fs/bpf"
	[ -n "$(unit_value "$2" UMask)" ] && mounts+=" && umask $(unit_value "$2" UMask)"
	# shellcheck disable=SC2034 # the caller's array, by name
	sandbox=(unshare -m --propagation slave sh -c "$mounts"' && exec "$@"' sh
		 setpriv "--inh-caps=-all,$caps" "--ambient-caps=-all,$caps"
		 "--bounding-set=-all,$caps" -- strace -f -qq -A -o "$NETNS_TMP/trace.$1")
}

# cpusteer ARGS in B under the loader unit's set; output in
# $NETNS_TMP/out.
cs_unit() {	# ARGS...
	in_b "${LOADER[@]}" "$CPUSTEER" "$@" >"$NETNS_TMP/out" 2>&1
}

health() {
	cs status "$VB" --json 2>/dev/null | jq -r '.instances[0].health // "none"'
}

test_loader_in_both_modes() {
	local before loaded mode

	before=$(device_state_b)
	for mode in skb native; do
		cs_unit unload "$VB" --stranded || t_fail "$mode: unload --stranded: $(cat "$NETNS_TMP/out")"
		cs_unit load "$VB" --xdp-mode "$mode" --cpus 0,1 --gro on \
			--gro-flush-timeout 1000 --defer-hard-irqs 2 --threaded-napi on ||
			{ t_fail "$mode: load: $(cat "$NETNS_TMP/out")"; continue; }
		t_eq "$mode: health after load" ok "$(health)"
		loaded=$(device_state_b)
		t_ne "$mode: the device after load" "$before" "$loaded"
		cs_unit set "$VB" --cpus 0 --gro-flush-timeout 2000 --defer-hard-irqs 3 \
			--threaded-napi off || t_fail "$mode: set: $(cat "$NETNS_TMP/out")"
		t_ne "$mode: the device after set" "$loaded" "$(device_state_b)"
		t_eq "$mode: the CPUs after set" 0 \
			"$(cs status "$VB" --json | jq -r '.instances[0].cpus | map(.cpu) | join(",")')"
		cs_unit unload "$VB" || t_fail "$mode: unload: $(cat "$NETNS_TMP/out")"
		t_eq "$mode: after unload: no program, the device as before" "$before" \
			"$(xdp_prog_id "$VB"; device_state_b)"
	done
}

# A load killed (with every capability) at its last bpf call, the write
# of the record that says "ready", is undone by unload --stranded.
test_loader_unload_stranded() {
	local before calls

	before=$(device_state_b)
	calls=$(in_b strace -f -qq -e trace=bpf -o /dev/stdout "$CPUSTEER" load "$VB" \
		--gro on --gro-flush-timeout 1000 2>/dev/null | grep -c '^[0-9 ]*bpf(')
	cs unload "$VB" >/dev/null 2>&1
	in_b strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGKILL:when="$calls" \
		"$CPUSTEER" load "$VB" --gro on --gro-flush-timeout 1000 >/dev/null 2>&1
	t_eq "status after the killed load" interrupted_load "$(health)"
	cs_unit unload "$VB" --stranded || t_fail "unload --stranded: $(cat "$NETNS_TMP/out")"
	t_eq "after unload --stranded: no program, the device as before" "$before" \
		"$(xdp_prog_id "$VB"; device_state_b)"
}

# The exporter's lines for IFACE in FILE that say it is whole: health ok,
# interface present, every tracepoint attached.
exporter_sees() {	# FILE IFACE
	grep -c "^cpusteer_instance_health{interface=\"$2\",.*problem=\"ok\"} 1" "$1"
	grep -c "^cpusteer_interface_present{interface=\"$2\",.*} 1" "$1"
	grep '^cpusteer_tracepoint_attached' "$1" | grep -vc ' 1$'
}

test_exporter() {
	local port=9435 pid

	cs load "$VB" --cpus 0 >/dev/null || { t_fail "load failed"; return; }
	in_a "${EXPORTER[@]}" "$CPUSTEER" exporter --once >"$NETNS_TMP/once" 2>"$NETNS_TMP/err" ||
		t_fail "--once: $(cat "$NETNS_TMP/err")"
	t_eq "--once: health ok, present, no tracepoint left out" "1 1 0" \
		"$(exporter_sees "$NETNS_TMP/once" "$VB" | paste -sd' ')"
	in_a "${EXPORTER[@]}" "$CPUSTEER" exporter --once --textfile "$NETNS_TMP/cpusteer.prom" \
		2>"$NETNS_TMP/err" ||
		t_fail "--textfile: $(cat "$NETNS_TMP/err")"
	t_eq "--textfile: health ok, present, no tracepoint left out" "1 1 0" \
		"$(exporter_sees "$NETNS_TMP/cpusteer.prom" "$VB" | paste -sd' ')"
	t_eq "--textfile: its mode, for node_exporter's user" 644 \
		"$(stat -c %a "$NETNS_TMP/cpusteer.prom")"
	# nsenter, unshare, sh and setpriv exec in turn, and strace forks the
	# exporter: $! is strace, the exporter its child.
	nsenter --net="/run/netns/$NSA" "${EXPORTER[@]}" "$CPUSTEER" exporter \
		--listen "127.0.0.1:$port" 2>"$NETNS_TMP/err" &
	pid=$!
	wait_until 10 in_a curl -sf -m 5 -o "$NETNS_TMP/scrape" "http://127.0.0.1:$port/metrics" ||
		t_fail "nothing served on A's 127.0.0.1:$port: $(cat "$NETNS_TMP/err")"
	kill "$(pgrep -P "$pid")"
	wait "$pid"
	t_eq "the exporter's exit status after SIGTERM" 0 "$?"
	t_eq "a scrape: health ok, present, no tracepoint left out" "1 1 0" \
		"$(exporter_sees "$NETNS_TMP/scrape" "$VB" | paste -sd' ')"
	cs unload "$VB" >/dev/null || t_fail "unload failed"
}

# A namespace held by a process of user nobody alone, with an instance
# on a veth of its own: its only path is /proc/PID/ns/net, which takes
# CAP_SYS_PTRACE to open for a process of another user.
test_exporter_reaches_other_users_netns() {
	local pid iface=vethN$$

	unshare --net sh -c "ip link add $iface type veth peer name ${iface}p &&
		ip link set $iface up && ip link set ${iface}p up &&
		'$CPUSTEER' load $iface --xdp-mode skb --cpus 0 >/dev/null &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups sleep 60" &
	pid=$!
	_bg_pids+=("$pid")
	wait_until 10 grep -q '^Uid:.*65534' "/proc/$pid/status" 2>/dev/null ||
		{ t_fail "the namespace of user nobody was not made"; return; }
	"${EXPORTER[@]}" "$CPUSTEER" exporter --once --no-tracepoints \
		>"$NETNS_TMP/once" 2>"$NETNS_TMP/err" || t_fail "--once: $(cat "$NETNS_TMP/err")"
	t_eq "--once: the instance of nobody's namespace, health ok" 1 \
		"$(grep -c "^cpusteer_instance_health{interface=\"$iface\",.*problem=\"ok\"} 1" "$NETNS_TMP/once")"
	nsenter --net="/proc/$pid/ns/net" "$CPUSTEER" unload "$iface" >/dev/null ||
		t_fail "unload in nobody's namespace failed"
	kill "$pid"
	wait "$pid" 2>/dev/null
}

# Every system call named by the words of a SystemCallFilter= (groups
# such as @system-service and single calls), one a line.
syscalls_of() {	# WORD...
	local word

	for word in "$@"; do
		case $word in
		@*) # shellcheck disable=SC2046 # a group's words
		    syscalls_of $(systemd-analyze syscall-filter "$word" | sed -n '2,$p' | grep -v '^ *#');;
		*) echo "$word";;
		esac
	done
}

# What the traced commands asked of the kernel, name by name: NAME's
# system calls, socket families, namespaces entered or made.
traced() {	# NAME calls|families|namespaces
	case $2 in
	calls) sed -n 's/^[0-9]* *\([a-z0-9_]*\)(.*/\1/p';;
	families) sed -n 's/^[0-9]* *socket(\(AF_[A-Z0-9]*\),.*/\1/p';;
	namespaces) sed -n 's/^[0-9]* *\(setns\|unshare\|clone3\{0,1\}\)(.*\(CLONE_NEW[A-Z]*\).*/\2/p' |
		sed -e 's/CLONE_NEWNS/mnt/' -e 's/CLONE_NEW//' | tr '[:upper:]' '[:lower:]';;
	esac <"$NETNS_TMP/trace.$1" | sort -u
}

# What the commands above did is what the units' sandboxes let through:
# each system call is in SystemCallFilter=, each socket family in
# RestrictAddressFamilies=, each namespace entered in RestrictNamespaces=.
test_sandbox_lets_through() {
	local name unit allowed

	if ! command -v systemd-analyze >/dev/null; then
		t_skip "no systemd-analyze to expand the units' system call groups"
		return
	fi
	for name in LOADER:cpusteer@.service EXPORTER:cpusteer-exporter.service; do
		unit=${name#*:} name=${name%:*}
		[ -s "$NETNS_TMP/trace.$name" ] || { t_fail "$unit: nothing traced"; continue; }
		# shellcheck disable=SC2046 # the filter's words
		allowed=$(syscalls_of $(unit_value "$unit" SystemCallFilter) | sed 's/^ *//' | sort -u)
		t_eq "$unit: system calls outside SystemCallFilter=" "" \
			"$(comm -23 <(traced "$name" calls) <(echo "$allowed") | paste -sd' ')"
		allowed=$(unit_value "$unit" RestrictAddressFamilies | tr ' ' '\n' | sort)
		t_eq "$unit: socket families outside RestrictAddressFamilies=" "" \
			"$(comm -23 <(traced "$name" families) <(echo "$allowed") | paste -sd' ')"
		allowed=$(unit_value "$unit" RestrictNamespaces | sed 's/^yes$//' | tr ' ' '\n' | sort)
		t_eq "$unit: namespaces outside RestrictNamespaces=" "" \
			"$(comm -23 <(traced "$name" namespaces) <(echo "$allowed") | paste -sd' ')"
	done
}

all_tests() {
	t_run netns_unit_caps_loader_in_both_modes test_loader_in_both_modes
	t_run netns_unit_caps_loader_unload_stranded test_loader_unload_stranded
	t_run netns_unit_caps_exporter test_exporter
	t_run netns_unit_caps_exporter_reaches_other_users_netns test_exporter_reaches_other_users_netns
	t_run netns_unit_caps_sandbox_lets_through test_sandbox_lets_through
}

t_plan_of all_tests
command -v strace >/dev/null || t_skip_all "needs strace, to kill a load at a chosen system call"
command -v setpriv >/dev/null || t_skip_all "needs setpriv, to drop capabilities"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
out=$(make -s -C "$NETNS_TOP" install DESTDIR="$NETNS_TMP/root" PREFIX=/usr 2>&1) ||
	t_abort "make install failed: $out"
sandbox_of LOADER cpusteer@.service
sandbox_of EXPORTER cpusteer-exporter.service
all_tests
t_exit
