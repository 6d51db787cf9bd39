#!/usr/bin/env bash
# cpusteer shares an interface with another user's XDP program through
# libxdp's dispatcher, where the kernel lets libxdp build one:
# - cpusteer's freplace probe (status --json .kernel.freplace) agrees with
#   what libxdp did for xdp-loader: a dispatcher exactly where it says yes;
# - with xdp-loader's program on vethB, cpusteer load joins it in the
#   dispatcher (both listed, status says so) and steers;
# - cpusteer unload leaves the other program in the dispatcher, and it
#   still sees the traffic;
# - loaded first and unloaded last, cpusteer leaves no program at all:
#   the dispatcher goes with the last program.
# Where the kernel refuses freplace, the last three skip with the reason
# libxdp printed.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   udp_flows send                        xdp_dispatcher
#                                           cpusteer_steer  (cpusteer load)
#                                           pass_count_prog (xdp-loader load)
#                                         udp_flows recv
set -u
. "$(dirname "$0")/lib_netns.sh"

PROBE=netns_dispatcher_probe_agrees_with_libxdp
BOTH=netns_dispatcher_holds_cpusteer_and_another
UNLOAD=netns_dispatcher_unload_leaves_the_other
LAST=netns_dispatcher_goes_with_the_last_program
PASS_OBJ=$NETNS_TOP/build/selftests/pass_count.bpf.o
PASS_PROG=pass_count_prog
DATAGRAMS=20
t_plan "$PROBE" "$BOTH" "$UNLOAD" "$LAST"
command -v xdp-loader >/dev/null || t_skip_all "xdp-loader (xdp-tools) is not installed"
command -v bpftool >/dev/null || t_skip_all "needs bpftool"
[ -f "$PASS_OBJ" ] || t_skip_all "$PASS_OBJ is not built (run make)"
netns_setup v4only || t_abort "setup: $NETNS_WHY"

LISTING=$NETNS_TMP/xdp-loader
list_programs() {
	in_b xdp-loader status "$VB" >"$LISTING" 2>&1
}

listed() {	# NAME
	[ -n "$(xdp_loader_listed_id "$1" "$LISTING")" ]
}

other_load() {	# loads the other program; its messages in $NETNS_TMP/other
	in_b xdp-loader load -v -m native "$VB" "$PASS_OBJ" -n "$PASS_PROG" \
		>"$NETNS_TMP/other" 2>&1
}

other_unload() {
	in_b xdp-loader unload "$VB" -i "$(xdp_loader_listed_id "$PASS_PROG" "$LISTING")" \
		>/dev/null 2>&1
}

# The packets the other program has seen.
other_count() {
	local prog map

	prog=$(xdp_loader_listed_id "$PASS_PROG" "$LISTING")
	map=$(bpftool -j prog show id "$prog" | jq '.map_ids[0]')
	bpftool -j map lookup id "$map" key 0 0 0 0 | jq '.formatted.value // .value'
}

# Sends DATAGRAMS UDP datagrams A -> B (one flow); prints how many B's
# socket received.
datagrams_received() {
	local rx=$NETNS_TMP/recv

	# shellcheck disable=SC2086
	bg_b "$TOOLS/udp_flows" recv $FLOWS_V4 --flows 1 --expect "$DATAGRAMS" \
		--idle 1000 --max 5000 >"$rx"
	wait_ready "$rx" || { echo "no receiver"; return; }
	# shellcheck disable=SC2086
	in_a "$TOOLS/udp_flows" send $FLOWS_V4 --flows 1 --count "$DATAGRAMS" >/dev/null
	wait "$BG_PID"
	awk '$1 == "total" { print $2 }' "$rx"
}

# --- the probe against libxdp's own decision --------------------------------
t_begin $PROBE
other_load || t_abort "xdp-loader load failed: $(cat "$NETNS_TMP/other")"
list_programs
libxdp_dispatcher=false
listed xdp_dispatcher && libxdp_dispatcher=true
cpusteer_says=$(cs status --json | jq -r .kernel.freplace)
t_eq "cpusteer's freplace probe (libxdp built a dispatcher: $libxdp_dispatcher)" \
	"$libxdp_dispatcher" "$cpusteer_says"
listed "$PASS_PROG" || t_fail "xdp-loader status does not list $PASS_PROG"
t_end
# What libxdp said when it attached the program alone, for the skips.
why="this kernel refuses freplace programs, libxdp said: $(grep -i -m1 'dispatcher.*failed\|freplace' \
	"$NETNS_TMP/other" | sed 's/^ *//')"
# The status line of cpusteer's probe, for the same reason in its words.
why="$why; cpusteer status: $(cs status | awk '$1 == "freplace" { $1 = ""; print }' | sed 's/^ *//')"

# --- cpusteer joins the other program --------------------------------------
t_begin $BOTH
if [ "$libxdp_dispatcher" != true ]; then
	t_skip "$why"
else
	out=$(cs load "$VB" --cpus 0-1 2>&1) || t_fail "cpusteer load failed: $out"
	list_programs
	listed xdp_dispatcher || t_fail "no xdp_dispatcher on $VB after cpusteer load"
	listed "$PASS_PROG" || t_fail "$PASS_PROG left the dispatcher when cpusteer joined it"
	t_eq "program id xdp-loader lists for cpusteer_steer" \
		"$(cs status "$VB" --json | jq -r '.instances[0].program_id')" \
		"$(xdp_loader_listed_id cpusteer_steer "$LISTING")"
	t_eq "status attach_path" dispatcher \
		"$(cs status "$VB" --json | jq -r '.instances[0].attach_path')"
	cs status "$VB" | grep -q "attach path .*freplace into libxdp's dispatcher" ||
		t_fail "status text has no 'attach path ... freplace into libxdp's dispatcher' line"
	t_eq "datagrams received with cpusteer steering" "$DATAGRAMS" "$(datagrams_received)"
	read_counters "$NETNS_TMP/counters"
	t_ge "datagrams cpusteer_steer redirected" "$DATAGRAMS" \
		"$(field "$NETNS_TMP/counters" redirected)"
	t_end
fi

# --- cpusteer leaves, the other program stays ------------------------------
t_begin $UNLOAD
if [ "$libxdp_dispatcher" != true ]; then
	t_skip "$why"
else
	before=$(other_count)
	out=$(cs unload "$VB" 2>&1) || t_fail "cpusteer unload failed: $out"
	list_programs
	listed cpusteer_steer && t_fail "cpusteer_steer is still listed after unload"
	listed "$PASS_PROG" || t_fail "$PASS_PROG is gone after cpusteer unload"
	t_eq "datagrams received through $PASS_PROG" "$DATAGRAMS" "$(datagrams_received)"
	t_ge "frames $PASS_PROG counted after the unload" "$((before + DATAGRAMS))" "$(other_count)"
	t_end
fi

# --- cpusteer first and last: nothing left ---------------------------------
t_begin $LAST
if [ "$libxdp_dispatcher" != true ]; then
	t_skip "$why"
else
	list_programs
	other_unload
	t_eq "XDP program on $VB before cpusteer load" "" "$(xdp_prog_id)"
	out=$(cs load "$VB" --cpus 0-1 2>&1) || t_fail "cpusteer load failed: $out"
	other_load || t_fail "xdp-loader load beside cpusteer failed: $(cat "$NETNS_TMP/other")"
	list_programs
	listed cpusteer_steer && listed "$PASS_PROG" ||
		t_fail "not both in the dispatcher: $(tr '\n' ' ' <"$LISTING")"
	other_unload
	out=$(cs unload "$VB" 2>&1) || t_fail "cpusteer unload failed: $out"
	t_eq "XDP program on $VB after both left" "" "$(xdp_prog_id)"
	t_end
fi
in_b xdp-loader unload "$VB" --all >/dev/null 2>&1
t_exit
