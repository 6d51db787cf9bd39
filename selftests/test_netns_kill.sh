#!/usr/bin/env bash
# cpusteer killed at any moment leaves a state that `status` explains and
# `unload` removes, and the device gets back its settings from before the
# load. 14 rounds each of kill -9 and of SIGINT, after a random delay, of
# `load` (with device settings, so there is something to restore), `set`
# (CPUs 0-1 <-> 0, buckets 512 <-> 1024, plus a device setting) and
# `unload`; then the same at fixed points with strace fault injection
# (SIGKILL at the Nth bpf / mkdir / mkdirat / flock call of load, at the
# Nth bpf / sendto / ioctl / unlinkat call of unload, at the Nth bpf /
# sendto / ioctl call of set).
#
# After each kill:
# - nothing left: no program on vethB, status says "not loaded" (exit 1);
# - left in phase ready: status shows no problem, the program it names is
#   the attached one, and the state is all-or-nothing: what it was before
#   the command, or what the command makes when it runs to its end;
# - left unfinished (a phase other than ready, or pins missing): status
#   (exit 0) names the problem and the command that resolves it,
#   `cpusteer set IFACE` for an interrupted set, `cpusteer unload IFACE`
#   otherwise; the text status shows the same problem;
# - when status named `cpusteer set`, every other time that is run first:
#   it must end in the set's configuration, maps and device (a test of its
#   own, netns_kill_set_finished_by_set, reported last);
# - a set that fails after a killed one (set --cpus 1 killed at each bpf
#   call after its record said "setting", then set --threaded-napi on,
#   which a veth without NAPI refuses) goes back to the table the packets
#   saw with a cpumap entry for every CPU a bucket names, and the record
#   goes on saying that a set is to be finished (a test of its own,
#   netns_kill_set_then_failing_set_keeps_entries);
# - `unload` then works (exit 0, or 1 "not loaded" when nothing was
#   left), and leaves no program, no pins and the device as before the
#   load;
# - a fresh load works (for set and unload rounds: the next round's load)
#   and a clean unload after it leaves no folder of this run.
# A SIGINT is held while the command works: it either completed (exit 0,
# the complete state) or changed nothing (exit 130, the state before).
# Each failure line names the round and the delay or the syscall and N. A
# "#" line after a test counts what the rounds left, for the reader.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   (no traffic)                          GRO on before any load
#                                         cpusteer CMD &  sleep RANDOM;
#                                         kill -9 / -INT; status; unload;
#                                         load; unload
#
# Not in kernel runs: 130 s on the host, over an hour under emulation
set -u
. "$(dirname "$0")/lib_netns.sh"

ROUNDS=14
K_LOAD=netns_kill9_load
K_SET=netns_kill9_set
K_UNLOAD=netns_kill9_unload
I_LOAD=netns_sigint_load
I_SET=netns_sigint_set
I_UNLOAD=netns_sigint_unload
S_LOAD_BPF=netns_kill_strace_load_bpf
S_LOAD_DIRS=netns_kill_strace_load_dirs_lock
S_SET=netns_kill_strace_set
S_UNLOAD=netns_kill_strace_unload
KEEPS=netns_kill_set_then_failing_set_keeps_entries
FINISHED=netns_kill_set_finished_by_set
ALL=("$K_LOAD" "$K_SET" "$K_UNLOAD" "$I_LOAD" "$I_SET" "$I_UNLOAD" "$S_LOAD_BPF" "$S_LOAD_DIRS"
	"$S_SET" "$S_UNLOAD" "$KEEPS" "$FINISHED")

t_plan "${ALL[@]}"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
in_b ethtool -K "$VB" gro on || t_abort "cannot turn GRO on on $VB"
NSDIR=${PINS%/*}		# the folder of B's namespace

# --- helpers ----------------------------------------------------------------

BEFORE=$(device_state_b)
# cpusteer in B (nsenter) writes NAPI settings over netlink, which has no
# per-NAPI threaded setting before Linux 6.17.
THREADED=(--threaded-napi on)
grep -q 'threaded -1' <<<"$BEFORE" && THREADED=()
LOAD_DEVICE=(--gro off --gro-flush-timeout 20000 --defer-hard-irqs 2 "${THREADED[@]}")
LOAD_ARGS=(--cpus 0-1 --buckets 512 "${LOAD_DEVICE[@]}")
# Set rounds alternate between two configurations, shrinking and growing.
CONF=("--cpus 0-1 --buckets 512" "--cpus 0 --buckets 1024")
SET_DEVICE="--gro-flush-timeout 50000"

# One line of a file, for failure messages.
said() {	# FILE
	tr '\n' ' ' <"$1" | cut -c1-300
}

# The id of the XDP program on vethB, empty when none.
attached_id() {
	local link

	link=$(ip -n "$NSB" -d link show "$VB")
	[[ $link =~ prog/xdp\ id\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

# The CPUs with an entry in the instance's cpumap, space-separated, sorted.
cpumap_cpus() {
	bpftool -j map dump pinned "$PINS/cpu_map" 2>/dev/null |
		jq -r '.[] | select(.value | type == "array") | .key | reverse |
			map(ltrimstr("0x")) | join("")' |
		while read -r hex; do echo $((16#$hex)); done | sort -n | tr '\n' ' '
}

# How many pins the instance's folder holds (0 when it does not exist).
pin_count() {
	local pins

	shopt -s nullglob
	pins=("$PINS"/*)
	shopt -u nullglob
	echo ${#pins[@]}
}

# What an operator and the kernel see, without the ids that change with
# each load: pins, attachment, status (phase, problem, CPUs with their
# bucket counts, buckets), and the device.
snapshot() {
	local json

	echo "pins $(pin_count) attached $([ -n "$(attached_id)" ] && echo yes || echo no)"
	json=$(cs status "$VB" --json 2>/dev/null)
	jq -r '.instances[0] // empty | "phase \(.phase) problem \(.problem)",
		"cpus \([.cpus[] | "\(.cpu):\(.buckets)"] | join(",")) buckets \(.buckets)"' <<<"$json"
	device_state_b
}

# A snapshot compared with what it should be; the difference on failure.
same_state() {	# WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || t_fail "$1:" "$(diff <(echo "$2") <(echo "$3") | grep '^[<>]' | tr '\n' ';')"
}

# The device back at its state from before any load, or a failure; then
# the device is set back by hand, so that one failed restore does not
# fail every later round too.
device_restored() {	# WHAT
	local now

	now=$(device_state_b)
	[ "$now" = "$BEFORE" ] && return
	same_state "$1" "$BEFORE" "$now"
	in_b ethtool -K "$VB" gro "$(awk '$1 == "gro" { print $2 }' <<<"$BEFORE")"
	# A device-wide sysfs write reaches every NAPI instance.
	# shellcheck disable=SC2016
	awk '$1 ~ /^sysfs_/ { print substr($1, 7), $2 }' <<<"$BEFORE" |
		ip netns exec "$NSB" sh -c 'while read -r f v; do echo "$v" >"/sys/class/net/$0/$f"; done' "$VB"
}

# Random delays fit each command: up to 1.5 times how long it takes here,
# so that most signals land while it works.
duration_ms() {	# ARGS...
	local start

	start=$(date +%s%N)
	cs "$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - start) / 1000000))
}

# Starts cpusteer in B in the background with every signal at its default
# (a non-interactive shell starts background jobs with SIGINT ignored).
# $CS_PID is cpusteer's PID: env and nsenter exec.
start_cs() {	# ARGS...
	env --default-signal nsenter --net="/run/netns/$NSB" "$CPUSTEER" "$@" \
		>"$NETNS_TMP/out" 2>"$NETNS_TMP/err" &
	CS_PID=$!
}

# Signals the command after a random delay of 0..MAX ms; $RC its exit
# status, $DELAY the delay.
signal_after() {	# SIGNAL MAX_MS
	DELAY=$((RANDOM % ($2 + 1)))
	sleep "$((DELAY / 1000)).$(printf %03d $((DELAY % 1000)))"
	kill -s "$1" "$CS_PID" 2>/dev/null
	# The braces keep bash's "Killed" job message out of the output.
	{ wait "$CS_PID"; } 2>/dev/null
	RC=$?
}

declare -A SEEN		# what the rounds of a test left, for the reader
seen() { SEEN[$1]=$((${SEEN[$1]:-0} + 1)); }
report_seen() {
	local k line=

	for k in $(printf '%s\n' "${!SEEN[@]}" | sort); do
		line+=" $k ${SEEN[$k]},"
	done
	echo "# $T_NAME: ${line%,}"
	SEEN=()
}

# Status after a kill. EXPECT_BEFORE and EXPECT_DONE are the snapshots of
# the state before the command and after it ran to its end: a state left
# in phase ready (or nothing left) must be one of them. Sets LEFT to
# nothing, ready or the phase status reports.
explain() {	# WHAT
	local w=$1 prog json rc phase interrupted attached id problem out now want

	prog=$(attached_id)
	json=$(cs status "$VB" --json 2>"$NETNS_TMP/status.err")
	rc=$?
	if [ "$(pin_count)" = 0 ]; then
		LEFT=nothing
		[ -n "$prog" ] && t_fail "$w: program $prog is attached to $VB with no pins"
		t_eq "$w: status exit status with nothing left" 1 "$rc"
		grep -q "not loaded" "$NETNS_TMP/status.err" ||
			t_fail "$w: status with nothing left should say 'not loaded', said '$(said "$NETNS_TMP/status.err")'"
	else
		[ "$rc" = 0 ] ||
			t_fail "$w: status exit status: expected 0, got $rc: $(said "$NETNS_TMP/status.err")"
		read -r phase interrupted attached id problem < <(jq -r '.instances[0] |
			"\(.phase) \(.interrupted) \(.attached) \(.program_id) \(.problem)"' <<<"$json")
		LEFT=${phase:-none}
		if [ "$phase" = ready ] && [ "$interrupted" = false ]; then
			t_eq "$w: status problem in phase ready" null "$problem"
			t_eq "$w: status attached in phase ready" true "$attached"
		else
			want=unload
			[ "$phase" = setting ] && want="set"
			[[ $problem == *"cpusteer $want $VB"* ]] ||
				t_fail "$w: status problem (phase $phase) should name 'cpusteer $want $VB', got '$problem'"
			t_eq "$w: status interrupted (phase $phase)" true "$interrupted"
			out=$(cs status "$VB" 2>&1)
			[[ $out == *"NEEDS ATTENTION: $problem"* ]] ||
				t_fail "$w: text status should show 'NEEDS ATTENTION: $problem', got '$(head -c 300 <<<"$out")'"
		fi
		if [ "$attached" = true ]; then
			t_eq "$w: status program_id (attached)" "$prog" "$id"
		elif [ -n "$prog" ] && [ "$prog" = "$id" ]; then
			t_fail "$w: status says program $id is not attached, but it is"
		fi
	fi
	seen "$LEFT"
	if [ "$LEFT" = nothing ] || [ "$LEFT" = ready ]; then
		now=${SNAP:-$(snapshot)}
		[ "$now" = "$EXPECT_BEFORE" ] || [ "$now" = "$EXPECT_DONE" ] ||
			same_state "$w: left $LEFT, the state is neither the one before the command nor the one after it (diff to the one after)" \
				"$EXPECT_DONE" "$now"
	fi
}

# Unload after a kill: works, and leaves no program, no pins and the
# device as before the load.
unload_after() {	# WHAT
	local w=$1 out rc

	out=$(cs unload "$VB" 2>&1)
	rc=$?
	if [ "$rc" != 0 ] && ! { [ "$LEFT" = nothing ] && [ "$rc" = 1 ] && [[ $out == *"not loaded"* ]]; }; then
		t_fail "$w: unload after the kill (left $LEFT): exit status $rc: $out"
	fi
	t_eq "$w: XDP program on $VB after unload" "" "$(attached_id)"
	[ -e "$PINS" ] && t_fail "$w: $PINS left after unload: $(ls -A "$PINS" | tr '\n' ' ')"
	device_restored "$w: device before the load and after unload (left $LEFT) differ"
}

# A load that must work: attached, all pins there.
load_ok() {	# WHAT ARGS...
	local w=$1 out

	shift
	if ! out=$(cs load "$VB" "$@" 2>&1); then
		t_fail "$w: load $* failed: $out"
		return 1
	fi
	[ -n "$(attached_id)" ] || t_fail "$w: load $* worked, but no program is attached"
	# Fourteen maps (four of them the prefix rules' tries), three second
	# stages and the steering program.
	t_eq "$w: pins after a load" 18 "$(pin_count)"
}

# The clean unload after a fresh load: nothing of this run left.
unload_clean() {	# WHAT
	local w=$1 out

	out=$(cs unload "$VB" 2>&1) || t_fail "$w: unload after a fresh load failed: $out"
	t_eq "$w: XDP program on $VB after the clean unload" "" "$(attached_id)"
	[ -e "$NSDIR" ] && t_fail "$w: $NSDIR left after the clean unload: $(find "$NSDIR" | tr '\n' ' ')"
	device_restored "$w: device before the load and after the clean unload differ"
}

# After an interrupted set whose status names `cpusteer set`: every other
# time, that command is run first. It must bring the maps to the set's
# configuration and the device to the setting it asked for. Failures go
# to their own test ($FINISHED), reported at the end.
FINISH=0
FINISH_RUNS=0
FINISH_FAILS=()
finish_set() {	# WHAT
	local w=$1 out now want

	[ "$LEFT" = setting ] || return 0
	FINISH=$((FINISH + 1))
	[ $((FINISH % 2)) = 1 ] || return 0
	FINISH_RUNS=$((FINISH_RUNS + 1))
	seen "finished-by-set"
	if ! out=$(cs set "$VB" 2>&1); then
		FINISH_FAILS+=("$w: cpusteer set $VB (as status said) failed: $out")
		return
	fi
	now=$(snapshot)
	want=$(grep -v '^gro \|^napi \|^sysfs_' <<<"$EXPECT_DONE")
	[ "$want" = "$(grep -v '^gro \|^napi \|^sysfs_' <<<"$now")" ] ||
		FINISH_FAILS+=("$w: after 'cpusteer set $VB', status and maps are not the set's: $(diff \
			<(echo "$want") <(grep -v '^gro \|^napi \|^sysfs_' <<<"$now") | grep '^[<>]' | tr '\n' ';')")
	want=$(grep '^gro \|^napi \|^sysfs_' <<<"$EXPECT_DONE")
	[ "$want" = "$(grep '^gro \|^napi \|^sysfs_' <<<"$now")" ] ||
		FINISH_FAILS+=("$w: after 'cpusteer set $VB', the device lacks what the interrupted set asked for ($SET_DEVICE): $(diff \
			<(echo "$want") <(grep '^gro \|^napi \|^sysfs_' <<<"$now") | grep '^[<>]' | tr '\n' ';')")
	out=$(cpumap_cpus)
	[ "$out" = "$DONE_CPUMAP" ] ||
		FINISH_FAILS+=("$w: cpumap entries after the finished set: expected '$DONE_CPUMAP', got '$out'")
}

# SIGINT: the command completed (exit 0, the complete state) or changed
# nothing (exit 130, the state before, the same program).
all_or_nothing() {	# WHAT PROG_BEFORE
	local w=$1 now

	now=$(snapshot)
	SNAP=$now		# for explain: nothing ran since
	case $RC in
	0)
		same_state "$w: exit 0 but the state is not the complete one" "$EXPECT_DONE" "$now"
		seen completed
		grep -q "arrived during .* was held" "$NETNS_TMP/err" && seen completed-noting-the-signal
		;;
	130)
		same_state "$w: exit 130 but the state changed" "$EXPECT_BEFORE" "$now"
		t_eq "$w: program after an interrupted command" "$2" "$(attached_id)"
		seen unchanged
		;;
	*) t_fail "$w: exit status $RC, expected 0 (completed) or 130 (stopped): $(said "$NETNS_TMP/err")" ;;
	esac
}

# --- reference states -------------------------------------------------------

# Each command once, run to its end: how long it takes, and the states the
# checks compare with.
EMPTY=$(snapshot)
LOAD_MS=$(duration_ms load "$VB" "${LOAD_ARGS[@]}")
LOADED=$(snapshot)
UNLOAD_MS=$(duration_ms unload "$VB")
declare -a SET_FROM SET_TO SET_TO_CPUMAP
SET_MS=0
for i in 0 1; do
	# shellcheck disable=SC2086
	cs load "$VB" ${CONF[i]} "${LOAD_DEVICE[@]}" >/dev/null 2>&1
	SET_FROM[i]=$(snapshot)
	# shellcheck disable=SC2086
	ms=$(duration_ms set "$VB" ${CONF[1 - i]} $SET_DEVICE)
	[ "$ms" -gt "$SET_MS" ] && SET_MS=$ms
	SET_TO[i]=$(snapshot)
	SET_TO_CPUMAP[i]=$(cpumap_cpus)
	cs unload "$VB" >/dev/null 2>&1
done
for ref in "$LOADED" "${SET_FROM[@]}" "${SET_TO[@]}"; do
	grep -q '^phase ready problem null$' <<<"$ref" ||
		t_abort "cannot make the reference states: a load or set did not work: $(tr '\n' ';' <<<"$ref")"
done
[ "$EMPTY" = "$(snapshot)" ] ||
	t_abort "cannot make the reference states: unload did not bring back the state before"
max_ms() { echo $(($1 + $1 / 2 + 5)); }

# --- kill -9 and SIGINT at random moments -------------------------------------

# load from nothing. The fresh load: a new instance after the recovery.
load_rounds() {	# SIGNAL
	local r w

	EXPECT_BEFORE=$EMPTY EXPECT_DONE=$LOADED
	for r in $(seq $ROUNDS); do
		SNAP=''
		start_cs load "$VB" "${LOAD_ARGS[@]}"
		signal_after "$1" "$(max_ms "$LOAD_MS")"
		w="round $r (SIG$1 of load after $DELAY ms)"
		[ "$1" = INT ] && all_or_nothing "$w" ""
		explain "$w"
		unload_after "$w"
		load_ok "$w" "${LOAD_ARGS[@]}" && unload_clean "$w"
	done
}

# set on a fresh load; the next round's load is the fresh load after the
# recovery, and one more load and unload close the test.
set_rounds() {	# SIGNAL
	local r w i prog

	for r in $(seq $ROUNDS); do
		i=$((r % 2))
		w="round $r"
		# shellcheck disable=SC2086
		load_ok "$w: load before the set" ${CONF[i]} "${LOAD_DEVICE[@]}" || continue
		prog=$(attached_id)
		EXPECT_BEFORE=${SET_FROM[i]} EXPECT_DONE=${SET_TO[i]} DONE_CPUMAP=${SET_TO_CPUMAP[i]}
		SNAP=''
		# shellcheck disable=SC2086
		start_cs set "$VB" ${CONF[1 - i]} $SET_DEVICE
		signal_after "$1" "$(max_ms "$SET_MS")"
		w="round $r (SIG$1 of set ${CONF[1 - i]} after $DELAY ms)"
		[ "$1" = INT ] && all_or_nothing "$w" "$prog"
		explain "$w"
		finish_set "$w"
		unload_after "$w"
	done
	load_ok "closing" "${LOAD_ARGS[@]}" && unload_clean "closing"
}

# unload of a fresh load; as for set, the next round's load is the fresh
# load after the recovery.
unload_rounds() {	# SIGNAL
	local r w prog

	EXPECT_BEFORE=$LOADED EXPECT_DONE=$EMPTY
	for r in $(seq $ROUNDS); do
		load_ok "round $r: load before the unload" "${LOAD_ARGS[@]}" || continue
		prog=$(attached_id)
		SNAP=''
		start_cs unload "$VB"
		signal_after "$1" "$(max_ms "$UNLOAD_MS")"
		w="round $r (SIG$1 of unload after $DELAY ms)"
		[ "$1" = INT ] && all_or_nothing "$w" "$prog"
		explain "$w"
		unload_after "$w"
	done
	load_ok "closing" "${LOAD_ARGS[@]}" && unload_clean "closing"
}

t_begin $K_LOAD
load_rounds KILL
t_end
report_seen

t_begin $K_SET
set_rounds KILL
t_end
report_seen

t_begin $K_UNLOAD
unload_rounds KILL
t_end
report_seen

t_begin $I_LOAD
load_rounds INT
t_end
report_seen

t_begin $I_SET
set_rounds INT
t_end
report_seen

t_begin $I_UNLOAD
unload_rounds INT
t_end
report_seen

# --- fixed points: strace kills at the Nth call -------------------------------

# strace_kill_in_b, counting the rounds whose call was never reached.
strace_kill() {	# SYSCALL N ARGS...
	strace_kill_in_b "$@"
	[ "$KILLED" = 1 ] || seen "not-reached"
}

count_calls() { count_calls_in_b "$@"; }

# 1, every STEP-th call up to COUNT, COUNT, and any EXTRA call numbers.
spread() {	# COUNT STEP EXTRA...
	local count=$1 step=$2

	shift 2
	{ seq 1 "$step" "$count"; echo "$count"; printf '%s\n' "$@"; } |
		awk -v c="$count" '$1 >= 1 && $1 <= c' | sort -nu | tr '\n' ' '
}

have_strace=1
strace_injects || have_strace=0

# A fault-injection round of load: SIGKILL at call N of SYSCALL, then the
# same recovery as above, a fresh load and a clean unload.
strace_load_round() {	# SYSCALL N
	local w="SIGKILL at $1 call $2 of load"

	SNAP=''
	strace_kill "$1" "$2" load "$VB" "${LOAD_ARGS[@]}"
	explain "$w"
	unload_after "$w"
	load_ok "$w" "${LOAD_ARGS[@]}" && unload_clean "$w"
}

t_begin $S_LOAD_BPF
if [ $have_strace = 0 ]; then
	t_skip "strace with fault injection (-e inject) is not installed"
else
	EXPECT_BEFORE=$EMPTY EXPECT_DONE=$LOADED
	n=$(count_calls bpf load "$VB" "${LOAD_ARGS[@]}")
	# The pins and the record are what recovery reads: kill at the first
	# and last pin and the calls around them, and at the last call (the
	# record's phase ready) and the one before it.
	pin_calls=$(grep ' bpf(' "$NETNS_TMP/count" | grep -n 'BPF_OBJ_PIN' | cut -d: -f1)
	first_pin=$(head -n 1 <<<"$pin_calls") last_pin=$(tail -n 1 <<<"$pin_calls")
	cs unload "$VB" >/dev/null 2>&1
	if ! [ "${n:-0}" -gt 0 ] || [ -z "$first_pin" ]; then
		t_fail "strace saw no bpf calls of load (or no pin among them): $(head -c 300 "$NETNS_TMP/count")"
	else
		points=$(spread "$n" $(((n + 7) / 8)) $((first_pin - 1)) "$first_pin" \
			$((first_pin + 1)) "$last_pin" $((last_pin + 1)) $((n - 1)))
		for k in $points; do
			strace_load_round bpf "$k"
		done
		echo "# $T_NAME: load makes $n bpf calls, pins at $first_pin..$last_pin; killed at $points"
	fi
	t_end
	report_seen
fi

t_begin $S_LOAD_DIRS
if [ $have_strace = 0 ]; then
	t_skip "strace with fault injection (-e inject) is not installed"
else
	EXPECT_BEFORE=$EMPTY EXPECT_DONE=$LOADED
	for sc in mkdirat mkdir flock; do
		n=$(count_calls "$sc" load "$VB" "${LOAD_ARGS[@]}")
		cs unload "$VB" >/dev/null 2>&1
		for k in $(seq "${n:-0}"); do
			strace_load_round "$sc" "$k"
		done
		SEEN[calls-$sc]=${n:-0}
	done
	t_end
	report_seen
fi

t_begin $S_SET
if [ $have_strace = 0 ]; then
	t_skip "strace with fault injection (-e inject) is not installed"
else
	EXPECT_BEFORE=${SET_FROM[0]} EXPECT_DONE=${SET_TO[0]} DONE_CPUMAP=${SET_TO_CPUMAP[0]}
	for sc in bpf sendto ioctl; do
		# shellcheck disable=SC2086
		cs load "$VB" ${CONF[0]} "${LOAD_DEVICE[@]}" >/dev/null 2>&1
		# shellcheck disable=SC2086
		n=$(count_calls "$sc" set "$VB" ${CONF[1]} $SET_DEVICE)
		cs unload "$VB" >/dev/null 2>&1
		SEEN[calls-$sc]=${n:-0}
		step=1
		[ "$sc" = bpf ] && step=5
		for k in $(spread "${n:-0}" $step); do
			w="SIGKILL at $sc call $k of set"
			# shellcheck disable=SC2086
			load_ok "$w: load before the set" ${CONF[0]} "${LOAD_DEVICE[@]}" || continue
			SNAP=''
			# shellcheck disable=SC2086
			strace_kill "$sc" "$k" set "$VB" ${CONF[1]} $SET_DEVICE
			explain "$w"
			finish_set "$w"
			unload_after "$w"
		done
	done
	load_ok "closing" "${LOAD_ARGS[@]}" && unload_clean "closing"
	t_end
	report_seen
fi

t_begin $S_UNLOAD
if [ $have_strace = 0 ]; then
	t_skip "strace with fault injection (-e inject) is not installed"
else
	EXPECT_BEFORE=$LOADED EXPECT_DONE=$EMPTY
	for sc in bpf sendto ioctl unlinkat; do
		cs load "$VB" "${LOAD_ARGS[@]}" >/dev/null 2>&1
		n=$(count_calls "$sc" unload "$VB")
		SEEN[calls-$sc]=${n:-0}
		step=1
		[ "$sc" = bpf ] && step=6
		[ "$sc" = unlinkat ] && step=4
		for k in $(spread "${n:-0}" $step); do
			w="SIGKILL at $sc call $k of unload"
			load_ok "$w: load before the unload" "${LOAD_ARGS[@]}" || continue
			SNAP=''
			strace_kill "$sc" "$k" unload "$VB"
			explain "$w"
			unload_after "$w"
		done
	done
	load_ok "closing" "${LOAD_ARGS[@]}" && unload_clean "closing"
	t_end
	report_seen
fi

# A set killed once its record says "setting", then a set that fails: the
# way back goes to the table the packets see, whose owners (CPU 0 while the
# killed set had not yet written the table) the record does not name, so
# each needs its cpumap entry kept; and what the packets see is still
# between two configurations, so the record must go on saying a set is to
# be finished. The failure: threaded NAPI on a veth with no NAPI (XDP in
# skb mode and GRO off). A kill at call N stops call N itself, so the
# kills start at the call after the record's write.
t_begin $KEEPS
if [ $have_strace = 0 ]; then
	t_skip "strace with fault injection (-e inject) is not installed"
else
	KEEP_LOAD=(--cpus 0 --buckets 512 --xdp-mode skb --gro off)
	cs load "$VB" "${KEEP_LOAD[@]}" >/dev/null 2>&1
	n=$(count_calls bpf set "$VB" --cpus 1)
	cs unload "$VB" >/dev/null 2>&1
	# The record: the map opened from the pin instance_state; its first
	# update is the write of phase setting.
	fd=$(sed -n 's/.*BPF_OBJ_GET, {pathname="[^"]*\/instance_state".*) = \([0-9]*\)$/\1/p' \
		"$NETNS_TMP/count" | head -n 1)
	rec=$(grep ' bpf(' "$NETNS_TMP/count" | grep -n "BPF_MAP_UPDATE_ELEM, {map_fd=${fd:-none}," |
		head -n 1 | cut -d: -f1)
	if [ -z "$rec" ] || ! [ "${n:-0}" -gt "$rec" ]; then
		t_fail "strace saw no update of the record among the $n bpf calls of set: $(head -c 300 "$NETNS_TMP/count")"
	else
		for k in $(seq $((rec + 1)) "$n"); do
			w="SIGKILL at bpf call $k of set --cpus 1"
			load_ok "$w: load before the set" "${KEEP_LOAD[@]}" || continue
			strace_kill bpf "$k" set "$VB" --cpus 1
			[ "$KILLED" = 1 ] || t_fail "$w: the set was not killed"
			t_eq "$w: phase after the kill" setting \
				"$(cs status "$VB" --json 2>&1 | jq -r '.instances[0].phase' 2>&1)"
			seen "table-$("$TOOLS/steer_maps" table "$PINS" 512 2>&1 | sort -u | paste -sd +)"
			out=$(cs set "$VB" --threaded-napi on 2>&1)
			t_eq "$w: then set --threaded-napi on: exit status ($out)" 1 $?
			[[ $out == *"threaded NAPI"* ]] ||
				t_fail "$w: set --threaded-napi on should fail on threaded NAPI, said '$out'"
			entries=" $(cpumap_cpus)"
			for cpu in $("$TOOLS/steer_maps" table "$PINS" 512 2>&1 | sort -u); do
				[[ $entries == *" $cpu "* ]] ||
					t_fail "$w: after the failed set, CPU $cpu owns buckets but has no cpumap entry (entries:$entries)"
			done
			read -r phase problem < <(cs status "$VB" --json 2>&1 |
				jq -r '.instances[0] | "\(.phase) \(.problem)"' 2>&1)
			t_eq "$w: phase after the failed set" setting "$phase"
			[[ $problem == *"cpusteer set $VB"* ]] ||
				t_fail "$w: status problem after the failed set should name 'cpusteer set $VB', got '$problem'"
			LEFT=setting
			unload_after "$w"
		done
		echo "# $T_NAME: set --cpus 1 makes $n bpf calls, the record's write is call $rec; killed at $((rec + 1))..$n"
	fi
	t_end
	report_seen
fi

# `cpusteer set IFACE`, as status says after an interrupted set, finishes
# it: the maps and the device end as the interrupted set would have left
# them, run to its end.
t_begin $FINISHED
if [ "$FINISH_RUNS" = 0 ]; then
	t_skip "no kill left a set in phase setting (strace not installed?)"
else
	for f in "${FINISH_FAILS[@]}"; do
		t_fail "$f"
	done
	t_end
	echo "# $T_NAME: 'cpusteer set IFACE' run after $FINISH_RUNS interrupted sets"
fi

t_exit
