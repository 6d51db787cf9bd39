#!/usr/bin/env bash
# Two cpusteer commands at once on the same interface: whatever order the
# lock gives them, every round ends in a state an operator can trust.
# 20 rounds of each race kind:
#   load || load        (different CPUs and device settings)
#   load || unload      from unloaded, and from loaded
#   set  || set         (CPUs and bucket count; and device settings)
#   set  || unload
# After every round:
# - at most one XDP program on vethB, and it is cpusteer's;
# - the instance's pins exist (all of them) exactly when a program is
#   attached, and the commands' exit statuses match the state they left;
# - `status --json` agrees with the kernel: attached, program_id equal to
#   the attached id, phase ready, no problem, not interrupted;
# - the cpumap has an entry for each CPU that owns a bucket, and none for
#   a CPU the instance does not use;
# - after each unload, no pin or folder of this run is left and GRO and
#   the NAPI settings are back at their values from before the first load.
# Each failure line names the round. A "#" line after a test says how its
# rounds went (which command came first), for the reader, not asserted.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   (no traffic)                          GRO on before the first load
#                                         cpusteer CMD1 &  cpusteer CMD2 &
#                                         wait; check; reset for next round
#
# Not in kernel runs: 50 s on the host, about 25 min under emulation
set -u
. "$(dirname "$0")/lib_netns.sh"

ROUNDS=20
LOAD_LOAD=netns_races_load_load
LOAD_UNLOAD_UNLOADED=netns_races_load_unload_from_unloaded
LOAD_UNLOAD_LOADED=netns_races_load_unload_from_loaded
SET_SET_CPUS=netns_races_set_set_cpus
SET_SET_DEVICE=netns_races_set_set_device
SET_UNLOAD=netns_races_set_unload
ALL=("$LOAD_LOAD" "$LOAD_UNLOAD_UNLOADED" "$LOAD_UNLOAD_LOADED" "$SET_SET_CPUS" "$SET_SET_DEVICE"
	"$SET_UNLOAD")
PIN_NAMES="instance_state cpu_map bucket_table config_map counters
	remote_counters remote_devmap remote_pass remote_drop remote_redirect prog"

t_plan "${ALL[@]}"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
command -v bpftool >/dev/null || t_abort "needs bpftool (reads the cpumap)"
in_b ethtool -K "$VB" gro on || t_abort "cannot turn GRO on on $VB"
NSDIR=${PINS%/*}		# the folder of B's namespace

# --- helpers ----------------------------------------------------------------

BEFORE=$(device_state_b)
# Kernels before 6.17 have no per-NAPI threaded setting in netlink, and
# cpusteer in B (nsenter) writes NAPI settings over netlink.
THREADED_ON=(--threaded-napi on)
THREADED_OFF=(--threaded-napi off)
if grep -q 'threaded -1' <<<"$BEFORE"; then
	THREADED_ON=()
	THREADED_OFF=()
fi

# Runs two cpusteer commands in B at once (word lists, no quoting needed):
# $RC1/$RC2 their exit statuses, $NETNS_TMP/err1, err2 their stderr.
# Odd rounds start the second one first.
race() {	# ROUND "ARGS1" "ARGS2"
	local p1 p2

	# shellcheck disable=SC2086
	if [ $(($1 % 2)) = 0 ]; then
		nsenter --net="/run/netns/$NSB" "$CPUSTEER" $2 >"$NETNS_TMP/out1" 2>"$NETNS_TMP/err1" &
		p1=$!
		nsenter --net="/run/netns/$NSB" "$CPUSTEER" $3 >"$NETNS_TMP/out2" 2>"$NETNS_TMP/err2" &
		p2=$!
	else
		nsenter --net="/run/netns/$NSB" "$CPUSTEER" $3 >"$NETNS_TMP/out2" 2>"$NETNS_TMP/err2" &
		p2=$!
		nsenter --net="/run/netns/$NSB" "$CPUSTEER" $2 >"$NETNS_TMP/out1" 2>"$NETNS_TMP/err1" &
		p1=$!
	fi
	wait "$p1"
	RC1=$?
	wait "$p2"
	RC2=$?
}

# One line of what a command printed on stderr, for failure messages.
said() {	# FILE
	tr '\n' ' ' <"$1" | cut -c1-300
}

# The CPUs with an entry in the instance's cpumap, space-separated, sorted.
cpumap_cpus() {
	bpftool -j map dump pinned "$PINS/cpu_map" 2>/dev/null |
		jq -r '.[] | select(.value | type == "array") | .key | reverse |
			map(ltrimstr("0x")) | join("")' |
		while read -r hex; do echo $((16#$hex)); done | sort -n | tr '\n' ' '
}

# Checks everything that must hold between commands, whatever ran.
# Sets LOADED (1/0), and when loaded ST (the instance's status JSON),
# ST_CPUS ("0 1 ") and ST_BUCKETS.
check_state() {	# ROUND
	local r=$1 link prog name nprogs json rc p owners entries c
	local attached id phase problem interrupted

	LOADED=0 ST='' ST_CPUS='' ST_BUCKETS=''
	link=$(ip -n "$NSB" -d link show "$VB")
	nprogs=$(grep -c 'prog/xdp id' <<<"$link")
	[ "$nprogs" -le 1 ] || t_fail "round $r: $nprogs XDP programs on $VB, expected at most 1"
	prog='' name=''
	if [[ $link =~ prog/xdp\ id\ ([0-9]+)\ name\ ([^ ]+) ]]; then
		prog=${BASH_REMATCH[1]} name=${BASH_REMATCH[2]}
		# Inside libxdp's dispatcher the interface shows the dispatcher;
		# cpusteer's own program is its extension, which status names.
		if [ "$name" = xdp_dispatcher ]; then
			prog=$(steer_prog_id_in "$NSB" "$VB")
			name=${prog:+cpusteer_steer}
		fi
		t_eq "round $r: name of the XDP program on $VB" cpusteer_steer "$name"
	fi
	json=$(cs status "$VB" --json 2>"$NETNS_TMP/status.err")
	rc=$?
	if [ ! -d "$PINS" ]; then
		[ -n "$prog" ] && t_fail "round $r: program $prog attached to $VB but $PINS does not exist"
		[ -e "$NSDIR" ] &&
			t_fail "round $r: nothing loaded, but $NSDIR is left: $(ls -A "$NSDIR" | tr '\n' ' ')"
		t_eq "round $r: status exit status when not loaded" 1 "$rc"
		t_eq "round $r: status instances when not loaded" 0 \
			"$(jq '.instances | length' <<<"$json" 2>&1)"
		return
	fi
	LOADED=1
	[ -z "$prog" ] && t_fail "round $r: $PINS exists ($(ls -A "$PINS" | tr '\n' ' ')) but no program is attached to $VB"
	for p in $PIN_NAMES; do
		[ -e "$PINS/$p" ] || t_fail "round $r: pin $p missing from $PINS"
	done
	t_eq "round $r: status exit status" 0 "$rc"
	ST=$(jq -c '.instances[0] // empty' <<<"$json" 2>/dev/null)
	if [ -z "$ST" ]; then
		t_fail "round $r: status --json shows no instance: $(cut -c1-200 <<<"$json") $(said "$NETNS_TMP/status.err")"
		return
	fi
	read -r attached id phase interrupted ST_BUCKETS ST_CPUS problem < <(jq -r '
		"\(.attached) \(.program_id) \(.phase) \(.interrupted) \(.buckets)",
		"\([.cpus[].cpu] | sort | map(tostring) | join(",") | if . == "" then "-" else . end)", "\(.problem)"' <<<"$ST" |
		tr '\n' ' ')
	ST_CPUS="${ST_CPUS//,/ } "
	t_eq "round $r: status attached" "$([ -n "$prog" ] && echo true || echo false)" "$attached"
	t_eq "round $r: status program_id (the attached id)" "${prog:-none}" "$id"
	t_eq "round $r: status phase" ready "$phase"
	t_eq "round $r: status problem" null "$problem"
	t_eq "round $r: status interrupted" false "$interrupted"
	owners=$("$TOOLS/steer_maps" table "$PINS" "$ST_BUCKETS" | sort -nu | tr '\n' ' ')
	entries=$(cpumap_cpus)
	for c in $owners; do
		[[ " $entries" == *" $c "* ]] ||
			t_fail "round $r: CPU $c owns buckets but has no cpumap entry (entries: '$entries')"
		[[ " $ST_CPUS" == *" $c "* ]] ||
			t_fail "round $r: CPU $c owns buckets but is not one of the instance's CPUs '$ST_CPUS'"
	done
	t_eq "round $r: CPUs with a cpumap entry (the instance's CPUs)" "$ST_CPUS" "$entries"
}

# After an unload: nothing of this run left, the device as before the load.
check_unloaded() {	# ROUND
	local r=$1 after

	t_eq "round $r: XDP program on $VB after unload" "" "$(xdp_prog_id)"
	[ -e "$PINS" ] && t_fail "round $r: $PINS left after unload: $(ls -A "$PINS" | tr '\n' ' ')"
	[ -e "$NSDIR" ] && t_fail "round $r: $NSDIR left after unload"
	after=$(device_state_b)
	[ "$BEFORE" = "$after" ] && return
	t_fail "round $r: device state before the first load and after unload differ:" \
		"$(diff <(echo "$BEFORE") <(echo "$after") | grep '^[<>]' | tr '\n' ';')"
	# Set back by hand, so that one failed restore does not fail every
	# later round too; a device-wide sysfs write reaches every NAPI.
	in_b ethtool -K "$VB" gro "$(awk '$1 == "gro" { print $2 }' <<<"$BEFORE")"
	# shellcheck disable=SC2016
	awk '$1 ~ /^sysfs_/ { print substr($1, 7), $2 }' <<<"$BEFORE" |
		ip netns exec "$NSB" sh -c 'while read -r f v; do echo "$v" >"/sys/class/net/$0/$f"; done' "$VB"
}

# Ends a round loaded or not: unloads what is there, checks the result.
end_round() {	# ROUND
	local out

	if [ -d "$PINS" ] || [ -n "$(xdp_prog_id)" ]; then
		out=$(cs unload "$VB" 2>&1) || t_fail "round $1: cpusteer unload failed: $out"
	fi
	check_unloaded "$1"
}

load_checked() {	# ROUND ARGS...
	local r=$1 out

	shift
	out=$(cs load "$VB" "$@" 2>&1) || t_fail "round $r: cpusteer load $* failed: $out"
}

NAPI_NETLINK=$(genl_napi_netlink)

# The device's GRO, NAPI defer_hard_irqs and threaded as the kernel has
# them: "gro on defer 2 threaded 1".
device_knobs() {
	local gro napi

	gro=$(in_b ethtool -k "$VB" | awk '$1 == "generic-receive-offload:" { print $2 }')
	if [ "$NAPI_NETLINK" = none ]; then
		# No netdev family (before 6.3): the device-wide sysfs files,
		# where cpusteer writes the settings on such a kernel.
		napi="defer $(b_sysfs napi_defer_hard_irqs) threaded $(b_sysfs threaded)"
	else
		napi=$(in_b "$TOOLS/napi_show" "$VB" | awk '{ print "defer", $4, "threaded", $8 }' |
			sort -u | tr '\n' ' ')
	fi
	echo "gro $gro ${napi% }"
}

# What the rounds of a race came to, for the reader: both orders should
# show up over the rounds (not asserted: the scheduler decides).
outcomes() {	# WHAT0 WHAT1
	echo "# $T_NAME: ${OUTCOMES[0]} rounds $1, ${OUTCOMES[1]} rounds $2"
}

# --- the races --------------------------------------------------------------

# Two loads: exactly one wins, the other is told the interface is taken.
t_begin $LOAD_LOAD
OUTCOMES=(0 0)
for r in $(seq $ROUNDS); do
	race "$r" "load $VB --cpus 0 --gro off" "load $VB --cpus 1 --gro off ${THREADED_ON[*]}"
	if [ "$RC1$RC2" = 01 ]; then
		winner=1 loser=2 want="0 "
	elif [ "$RC1$RC2" = 10 ]; then
		winner=2 loser=1 want="1 "
	else
		t_fail "round $r: exit statuses $RC1 and $RC2, expected one 0 and one 1;" \
			"stderr: '$(said "$NETNS_TMP/err1")' / '$(said "$NETNS_TMP/err2")'"
		winner=
	fi
	# The loser is told the interface is taken; or, when the winner held
	# the lock through the loser's whole wait (10 s: seen under emulation
	# on a busy host), who holds it. Either way it changed nothing.
	if [ -n "$winner" ] && ! grep -q "already loaded" "$NETNS_TMP/err$loser"; then
		if grep -Eq "is busy: pid [0-9]+ .* waited 10 s" "$NETNS_TMP/err$loser"; then
			echo "# round $r: the losing load waited 10 s for the lock and named its holder"
		else
			t_fail "round $r: the losing load should say 'already loaded', said '$(said "$NETNS_TMP/err$loser")'"
		fi
	fi
	check_state "$r"
	t_eq "round $r: loaded after load || load" 1 "$LOADED"
	[ -n "$winner" ] && [ "$LOADED" = 1 ] &&
		t_eq "round $r: CPUs of the winning load $winner" "$want" "$ST_CPUS"
	[ -n "$winner" ] && OUTCOMES[winner - 1]=$((OUTCOMES[winner - 1] + 1))
	end_round "$r"
done
t_end
outcomes "the first load won" "the second load won"

# Unload may run before the load (says not loaded, or removes the empty
# folder the load just made) or after it (unloads): load always works, and
# the statuses agree with what is left.
t_begin $LOAD_UNLOAD_UNLOADED
OUTCOMES=(0 0)
for r in $(seq $ROUNDS); do
	race "$r" "load $VB --cpus 0-1 --gro off ${THREADED_ON[*]}" "unload $VB"
	[ "$RC1" = 0 ] || t_fail "round $r: load exit status: expected 0, got $RC1; stderr: $(said "$NETNS_TMP/err1")"
	check_state "$r"
	case $RC2 in
	0) ;;
	1)
		grep -q "not loaded" "$NETNS_TMP/err2" ||
			t_fail "round $r: unload failed without saying 'not loaded': '$(said "$NETNS_TMP/err2")'"
		t_eq "round $r: loaded after a load and an unload that found nothing" 1 "$LOADED"
		;;
	*) t_fail "round $r: unload exit status $RC2, expected 0 or 1: '$(said "$NETNS_TMP/err2")'" ;;
	esac
	[ "$LOADED" = 1 ] && [ "$RC1" = 0 ] && t_eq "round $r: CPUs of the load" "0 1 " "$ST_CPUS"
	OUTCOMES[LOADED]=$((OUTCOMES[LOADED] + 1))
	end_round "$r"
done
t_end
outcomes "ended unloaded (unload second)" "ended loaded (unload first)"

# Unload always works; the load either comes after it (and works) or
# before it (refused: already loaded), so loaded at the end <=> load ok.
t_begin $LOAD_UNLOAD_LOADED
OUTCOMES=(0 0)
for r in $(seq $ROUNDS); do
	load_checked "$r" --cpus 0-1 --gro off "${THREADED_ON[@]}"
	race "$r" "load $VB --cpus 1 --gro off" "unload $VB"
	[ "$RC2" = 0 ] || t_fail "round $r: unload exit status: expected 0, got $RC2; stderr: $(said "$NETNS_TMP/err2")"
	check_state "$r"
	case $RC1 in
	0)
		t_eq "round $r: loaded after unload then load" 1 "$LOADED"
		[ "$LOADED" = 1 ] && t_eq "round $r: CPUs of the second load" "1 " "$ST_CPUS"
		;;
	1)
		grep -q "already loaded" "$NETNS_TMP/err1" ||
			t_fail "round $r: the refused load should say 'already loaded', said '$(said "$NETNS_TMP/err1")'"
		t_eq "round $r: loaded after a refused load then unload" 0 "$LOADED"
		;;
	*) t_fail "round $r: load exit status $RC1, expected 0 or 1: '$(said "$NETNS_TMP/err1")'" ;;
	esac
	OUTCOMES[LOADED]=$((OUTCOMES[LOADED] + 1))
	end_round "$r"
done
t_end
outcomes "ended unloaded (load refused, then unload)" "ended loaded (unload, then load)"

# Two sets: both work, one after the other; the last one's CPUs and bucket
# count hold, whole (not a mix of the two).
t_begin $SET_SET_CPUS
load_checked 0 --cpus 0-1 --buckets 512 --gro off
for r in $(seq $ROUNDS); do
	race "$r" "set $VB --cpus 0 --buckets 1024" "set $VB --cpus 1 --buckets 256"
	[ "$RC1" = 0 ] || t_fail "round $r: first set exit status: expected 0, got $RC1; stderr: $(said "$NETNS_TMP/err1")"
	[ "$RC2" = 0 ] || t_fail "round $r: second set exit status: expected 0, got $RC2; stderr: $(said "$NETNS_TMP/err2")"
	check_state "$r"
	t_eq "round $r: loaded after set || set" 1 "$LOADED"
	if [ "$LOADED" = 1 ]; then
		got="cpus ${ST_CPUS}buckets $ST_BUCKETS"
		case $got in
		"cpus 0 buckets 1024"|"cpus 1 buckets 256") ;;
		*) t_fail "round $r: expected 'cpus 0 buckets 1024' or 'cpus 1 buckets 256', got '$got'" ;;
		esac
	fi
	out=$(cs set "$VB" --cpus 0-1 --buckets 512 2>&1) || t_fail "round $r: resetting set failed: $out"
done
end_round final
t_end

# Two sets of device settings: both work; the device holds the last one's
# values, whole; status reports the kernel's values and still restores
# the ones from before the load; unload puts those back.
t_begin $SET_SET_DEVICE
SET_A="--gro off ${THREADED_ON[*]} --defer-hard-irqs 2"
SET_B="--gro on ${THREADED_OFF[*]} --defer-hard-irqs 5"
if [ ${#THREADED_ON[@]} = 0 ]; then
	WANT_A="gro off defer 2 threaded -1" WANT_B="gro on defer 5 threaded -1"
else
	WANT_A="gro off defer 2 threaded 1" WANT_B="gro on defer 5 threaded 0"
fi
load_checked 0 --cpus 0-1
for r in $(seq $ROUNDS); do
	race "$r" "set $VB $SET_A" "set $VB $SET_B"
	[ "$RC1" = 0 ] || t_fail "round $r: first set exit status: expected 0, got $RC1; stderr: $(said "$NETNS_TMP/err1")"
	[ "$RC2" = 0 ] || t_fail "round $r: second set exit status: expected 0, got $RC2; stderr: $(said "$NETNS_TMP/err2")"
	check_state "$r"
	t_eq "round $r: loaded after set || set" 1 "$LOADED"
	knobs=$(device_knobs)
	[ "$knobs" = "$WANT_A" ] || [ "$knobs" = "$WANT_B" ] ||
		t_fail "round $r: device: expected '$WANT_A' or '$WANT_B', got '$knobs'"
	if [ -n "$ST" ]; then
		st_knobs=$(jq -r '.device | "gro \(if .gro then "on" else "off" end) defer \(.defer_hard_irqs) threaded \(if .threaded_napi == null then -1 elif .threaded_napi then 1 else 0 end)"' <<<"$ST")
		t_eq "round $r: status .device (kernel: ethtool, napi_show)" "$knobs" "$st_knobs"
		t_eq "round $r: status .restore_on_unload .gro (GRO before the load)" true \
			"$(jq -r .restore_on_unload.gro <<<"$ST")"
		t_eq "round $r: status .restore_on_unload .defer_hard_irqs" 0 \
			"$(jq -r .restore_on_unload.defer_hard_irqs <<<"$ST")"
	fi
done
end_round final
t_end

# Set and unload: unload always works and leaves nothing, whether the set
# came first (its device change is undone too) or after (not loaded).
t_begin $SET_UNLOAD
OUTCOMES=(0 0)
for r in $(seq $ROUNDS); do
	load_checked "$r" --cpus 0-1
	race "$r" "set $VB --cpus 0 --gro off" "unload $VB"
	[ "$RC2" = 0 ] || t_fail "round $r: unload exit status: expected 0, got $RC2; stderr: $(said "$NETNS_TMP/err2")"
	case $RC1 in
	0) ;;
	1)
		grep -q "not loaded" "$NETNS_TMP/err1" ||
			t_fail "round $r: the set after unload should say 'not loaded', said '$(said "$NETNS_TMP/err1")'"
		;;
	*) t_fail "round $r: set exit status $RC1, expected 0 or 1: '$(said "$NETNS_TMP/err1")'" ;;
	esac
	check_state "$r"
	t_eq "round $r: loaded after set || unload" 0 "$LOADED"
	OUTCOMES[RC1]=$((OUTCOMES[RC1] + 1))
	end_round "$r"
done
t_end
outcomes "the set came first" "the set came after the unload"

t_exit
