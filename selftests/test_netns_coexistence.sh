#!/usr/bin/env bash
# Coexistence with other XDP users of the interface:
# - cpusteer attaches through libxdp, so `xdp-loader status` lists its
#   program on vethB (alone where the kernel refuses libxdp's dispatcher,
#   under the dispatcher where it allows it) with the id `cpusteer status`
#   reports;
# - when something else replaced cpusteer's program, unload removes the
#   pins and leaves that program attached;
# - load refuses an interface that has another (non-libxdp) program, and
#   leaves that program attached.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         cpusteer load --cpus 0-1
#                                         xdp-loader status vethB
#                                         ip link set vethB xdp obj floor.bpf.o
set -u
. "$(dirname "$0")/lib_netns.sh"

NAME=netns_xdp_loader_status_lists_cpusteer
FOREIGN_UNLOAD=netns_unload_leaves_foreign_program
FOREIGN_LOAD=netns_load_refuses_foreign_program
FOREIGN_OBJ=$NETNS_TOP/build/floor.bpf.o
t_plan "$NAME" "$FOREIGN_UNLOAD" "$FOREIGN_LOAD"
netns_setup || t_abort "setup: $NETNS_WHY"
out=$(cs load "$VB" --cpus 0-1 2>&1) ||
	t_abort "cpusteer load failed: $out"

check_xdp_loader() {
	in_b xdp-loader status "$VB" >"$NETNS_TMP/xdp-loader" 2>&1
	t_eq "xdp-loader status exit status" 0 $?
	if ! grep -qw cpusteer_steer "$NETNS_TMP/xdp-loader"; then
		t_fail "xdp-loader status does not list cpusteer_steer:"
		while read -r l; do t_fail "  $l"; done <"$NETNS_TMP/xdp-loader"
		return
	fi
	t_eq "program id xdp-loader lists" \
		"$(cs status "$VB" --json | jq -r '.instances[0].program_id')" \
		"$(xdp_loader_listed_id cpusteer_steer "$NETNS_TMP/xdp-loader")"
	grep -w "$VB" "$NETNS_TMP/xdp-loader" | grep -qw native ||
		t_fail "xdp-loader does not show $VB in native mode"
}

t_begin $NAME
if command -v xdp-loader >/dev/null; then
	check_xdp_loader
	t_end
else
	t_skip "xdp-loader (xdp-tools) is not installed"
fi

# A program cpusteer did not attach: the drop floor, attached by ip(8)
# without libxdp.
attach_foreign() {
	ip -n "$NSB" link set dev "$VB" xdp obj "$FOREIGN_OBJ" sec xdp 2>&1
}

t_begin $FOREIGN_UNLOAD
ip -n "$NSB" link set dev "$VB" xdp off
if ! out=$(attach_foreign); then
	t_fail "cannot attach $FOREIGN_OBJ with ip: $out"
else
	foreign=$(xdp_prog_id)
	out=$(cs unload "$VB" 2>&1) || t_fail "cpusteer unload failed: $out"
	t_eq "XDP program on $VB after unload" "$foreign" "$(xdp_prog_id)"
	[ -e "$PINS" ] && t_fail "$PINS still exists after unload"
fi
t_end

t_begin $FOREIGN_LOAD
[ -n "$(xdp_prog_id)" ] || attach_foreign >/dev/null
foreign=$(xdp_prog_id)
cs load "$VB" --cpus 0-1 >/dev/null 2>"$NETNS_TMP/err"
rc=$?
[ $rc != 0 ] || t_fail "load: expected a non-zero exit status, got 0"
t_eq "lines on stderr" 1 "$(wc -l <"$NETNS_TMP/err")"
grep -q '^cpusteer: .*another XDP program' "$NETNS_TMP/err" ||
	t_fail "stderr: expected 'cpusteer: ...another XDP program...', got '$(cat "$NETNS_TMP/err")'"
t_eq "XDP program on $VB" "$foreign" "$(xdp_prog_id)"
[ -e "$PINS" ] && t_fail "$PINS exists after a refused load"
t_end
ip -n "$NSB" link set dev "$VB" xdp off
t_exit
