#!/usr/bin/env bash
# cpusteer unload puts everything back: no XDP program on vethB, no pins,
# and the device settings that load changed (GRO, gro_flush_timeout,
# napi_defer_hard_irqs, threaded NAPI) at their values from before the load. Then: unload
# after the interface vanished (its namespace deleted), run from the host,
# still succeeds and removes the pins; unload run outside B (interface
# names are per namespace) is refused with a line that names B and the
# command to run there, and that command works. A load run under
# `ip netns exec` (whose /sys hides the host's bpffs) either works like any
# other, pins on the host's bpffs and unloadable, or is refused cleanly;
# it must not leave a program attached that no cpusteer command can find.
# Every other command run there refuses, and changes nothing: unload in
# particular must not take the instance it cannot see for gone.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         GRO on before the load, then
#                                         cpusteer load --gro off
#                                           --gro-flush-timeout 20000
#                                           --defer-hard-irqs 2
#                                           --threaded-napi on
#                                         cpusteer unload
#
# cpusteer writes the NAPI settings in one of two ways (loader/device/device.h):
# - run with `nsenter --net`, its /sys shows the host's devices, so it uses
#   netdev netlink and changes each NAPI instance (napi_show reads them);
#   a kernel without netlink NAPI_SET gets the device-wide files through a
#   sysfs of its own namespace that cpusteer mounts detached;
# - run where /sys shows B's own devices, it writes the device-wide sysfs
#   files. Here: a private mount namespace with B's sysfs on /sys and the
#   host's bpffs bound back onto /sys/fs/bpf.
# Each way gets its own load/unload test.
set -u
. "$(dirname "$0")/lib_netns.sh"

NSENTER=netns_unload_restores_device_nsenter_path
SYSFS=netns_unload_restores_device_sysfs_path
ELSEWHERE=netns_unload_from_another_namespace_refused
HINT=netns_unload_hint_for_its_namespace_works
IPNETNS=netns_load_under_ip_netns_exec_not_orphaned
VANISHED=netns_unload_after_interface_vanished
HIDDEN=netns_commands_refuse_where_bpffs_is_hidden

t_plan "$NSENTER" "$SYSFS" "$ELSEWHERE" "$HINT" "$IPNETNS" "$HIDDEN" "$VANISHED"
netns_setup || t_abort "setup: $NETNS_WHY"
mkdir -p "$NETNS_TMP/bpffs"

# cpusteer in B, with a /sys that shows B's devices (see above).
cs_own_sysfs() {
	in_b unshare -m sh -c 'mount --bind /sys/fs/bpf "$0" &&
		mount -t sysfs sysfs /sys && mount --bind "$0" /sys/fs/bpf &&
		exec "$@"' "$NETNS_TMP/bpffs" "$CPUSTEER" "$@"
}

# Loads through RUNNER with changed device settings, checks they took
# effect, unloads, and compares with the state from before.
load_unload() {	# RUNNER
	local runner=$1 before during after out threaded=(--threaded-napi on) want_thr=1

	in_b ethtool -K "$VB" gro on || t_fail "cannot turn GRO on before the test"
	before=$(device_state_b)
	# Kernels before 6.17 have no per-NAPI threaded setting in netlink,
	# which only matters where the settings go through NAPI_SET: a kernel
	# that can only read NAPI instances (6.12 shows "threaded -1" there
	# too) gets the device-wide sysfs file, threaded included.
	if [ "$runner" = cs ] && [ "$(genl_napi_netlink)" = set ] &&
		grep -q 'threaded -1' <<<"$before"; then
		threaded=()
		want_thr=-1
	fi
	if ! out=$($runner load "$VB" --cpus 0-1 --gro off --gro-flush-timeout 20000 \
		--defer-hard-irqs 2 "${threaded[@]}" 2>&1); then
		t_fail "cpusteer load failed: $out"
		return
	fi
	during=$(device_state_b)
	[ -n "$(xdp_prog_id)" ] || t_fail "no XDP program on $VB after load"
	t_eq "GRO while loaded" "gro off" "$(grep '^gro' <<<"$during")"
	# The settings must show where this way writes them, or the restore
	# below would prove nothing.
	if [ "$runner" = cs ] && [ "$(genl_napi_netlink)" = set ]; then
		t_eq "NAPI settings while loaded" \
			"napi  defer_hard_irqs 2 gro_flush_timeout 20000 threaded $want_thr" \
			"$(grep '^napi' <<<"$during")"
	else
		t_eq "sysfs gro_flush_timeout while loaded" "sysfs_gro_flush_timeout 20000" \
			"$(grep '^sysfs_gro' <<<"$during")"
		t_eq "sysfs napi_defer_hard_irqs while loaded" "sysfs_napi_defer_hard_irqs 2" \
			"$(grep '^sysfs_napi' <<<"$during")"
		t_eq "sysfs threaded while loaded" "sysfs_threaded 1" \
			"$(grep '^sysfs_threaded' <<<"$during")"
	fi
	out=$($runner unload "$VB" 2>&1) || t_fail "cpusteer unload failed: $out"
	after=$(device_state_b)
	t_eq "XDP program on $VB after unload" "" "$(xdp_prog_id)"
	ip -n "$NSB" link show "$VB" | grep -q xdp && t_fail "ip link still shows xdp on $VB"
	[ -e "$PINS" ] && t_fail "$PINS still exists after unload"
	[ "$before" = "$after" ] || t_fail "device state before load and after unload differ:" \
		"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ';')"
}

t_begin $NSENTER
load_unload cs
t_end

t_begin $SYSFS
if ! cs_own_sysfs --help >/dev/null 2>&1; then
	t_skip "cannot give cpusteer a /sys of its own network namespace here"
else
	load_unload cs_own_sysfs
	t_end
fi

# From the host, where no vethB<pid> exists: refused, and nothing changes.
t_begin $ELSEWHERE
out=$(cs load "$VB" --cpus 0-1 2>&1) || t_fail "cpusteer load failed: $out"
prog=$(xdp_prog_id)
"$CPUSTEER" unload "$VB" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err" &&
	t_fail "unload from the host: expected a non-zero exit status, got 0"
t_eq "lines on stderr" 1 "$(wc -l <"$NETNS_TMP/err")"
grep -q "^cpusteer: .*$NSB" "$NETNS_TMP/err" ||
	t_fail "stderr: expected 'cpusteer: ' and a mention of $NSB, got '$(cat "$NETNS_TMP/err")'"
[ -n "$prog" ] && t_eq "XDP program on $VB" "$prog" "$(xdp_prog_id)"
[ -d "$PINS" ] || t_fail "$PINS is gone after a refused unload"
t_end

# The message's last parenthesis holds the command to run instead.
t_begin $HINT
hint=$(sed -n 's/.*(\([^()]*cpusteer unload [^()]*\))$/\1/p' "$NETNS_TMP/err")
if [ -z "$hint" ]; then
	t_fail "no '(... cpusteer unload ...)' hint in '$(cat "$NETNS_TMP/err")'"
else
	read -ra words <<<"$hint"
	for i in "${!words[@]}"; do
		[ "${words[$i]}" = cpusteer ] && words[i]=$CPUSTEER
	done
	case ${words[0]} in
	ip|nsenter)
		"${words[@]}" >"$NETNS_TMP/out" 2>&1 ||
			t_fail "'$hint' failed: $(cat "$NETNS_TMP/out")"
		t_eq "XDP program on $VB after '$hint'" "" "$(xdp_prog_id)"
		[ -e "$PINS" ] && t_fail "$PINS still exists after '$hint'"
		;;
	*)
		t_fail "the hint '$hint' is neither an ip nor an nsenter command; not run"
		;;
	esac
fi
[ -d "$PINS" ] && cs unload "$VB" >/dev/null 2>&1
t_end

t_begin $IPNETNS
ip netns exec "$NSB" "$CPUSTEER" load "$VB" --cpus 0-1 >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
rc=$?
if [ $rc = 0 ]; then
	[ -d "$PINS" ] || t_fail "load under ip netns exec succeeded, but $PINS does not exist"
	out=$(cs unload "$VB" 2>&1) ||
		t_fail "cpusteer unload after a load under ip netns exec failed: $out"
	t_eq "XDP program on $VB after unload" "" "$(xdp_prog_id)"
else
	t_eq "lines on stderr" 1 "$(wc -l <"$NETNS_TMP/err")"
	grep -q '^cpusteer: ' "$NETNS_TMP/err" ||
		t_fail "stderr: expected a line starting 'cpusteer: ', got '$(cat "$NETNS_TMP/err")'"
	t_eq "XDP program on $VB after a refused load" "" "$(xdp_prog_id)"
fi
# Whatever the outcome, leave vethB bare for the next test.
[ -n "$(xdp_prog_id)" ] && ip -n "$NSB" link set dev "$VB" xdp off
t_end

# Under ip netns exec, /sys is the namespace's own and the host's bpffs is
# hidden: an instance there looks absent. Every command that reads or
# changes one refuses, in one line that gives the command to run instead
# (the same command, every option kept), and nothing changes: the program
# stays attached, the pins stay.
t_begin $HIDDEN
out=$(cs load "$VB" --cpus 0-1 2>&1) || t_fail "cpusteer load failed: $out"
prog=$(xdp_prog_id)
pins=$(ls "$PINS" 2>&1)
for args in "unload $VB" "status $VB" "status" "set $VB --cpus 0 --qsize 64" \
	"stats $VB --count 1" "balance $VB --once"; do
	# shellcheck disable=SC2086 # the command's words
	ip netns exec "$NSB" "$CPUSTEER" $args >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
	t_eq "$args under ip netns exec: status and lines on stderr" "1 1" \
		"$? $(wc -l <"$NETNS_TMP/err")"
	grep -qF "(ip netns exec mounts a /sys of its own, which hides the host's); enter only the network namespace instead: nsenter --net=/run/netns/$NSB cpusteer $args" \
		"$NETNS_TMP/err" || t_fail "$args: the refusal: $(cat "$NETNS_TMP/err")"
	t_eq "$args: XDP program after it" "$prog" "$(xdp_prog_id)"
	t_eq "$args: pins after it" "$pins" "$(ls "$PINS" 2>&1)"
done
out=$(nsenter --net="/run/netns/$NSB" "$CPUSTEER" unload "$VB" 2>&1) ||
	t_fail "the command the refusal gave failed: $out"
t_eq "XDP program after it" "" "$(xdp_prog_id)"
t_end

t_begin $VANISHED
out=$(cs load "$VB" --cpus 0-1 2>&1) || t_fail "cpusteer load failed: $out"
# Deleting B destroys the veth pair, and with it the attachment.
ip netns del "$NSB"
for i in $(seq 50); do
	ip -n "$NSA" link show "$VA" >/dev/null 2>&1 || break
	sleep 0.1
done
"$CPUSTEER" unload "$VB" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
t_eq "unload exit status" 0 $?
t_eq "unload stderr" "" "$(cat "$NETNS_TMP/err")"
[ -e "$PINS" ] && t_fail "$PINS still exists after unload"
t_end
t_exit
