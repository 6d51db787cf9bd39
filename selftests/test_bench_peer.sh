#!/usr/bin/env bash
# The peer scenario: xdp-bench redirect-cpu in three program modes beside
# cpusteer, on the bench's test bed and on a real interface (--dev).
# Short runs that check the report and the cleanup, not speed.
# Not in kernel runs: minutes under emulation; whether xdp-bench loads is reported, not asserted
#
#   host namespace                    namespace csb<pid>
#   csbA<pid> 10.201.0.1  --veth-->   csbB<pid> 10.201.0.2
#   live-frames generator, CPU 0      xdp-bench --program-mode no-touch,
#                                     round-robin, l4-hash; then cpusteer
#                                     --no-touch and steering; --remote drop
#
# Most tests put selftests/tools/xdp-bench-standin first on PATH as
# xdp-bench, so that each path runs on every machine: a mode that works,
# one that exits with a complaint, one that attaches a program without a
# cpumap and will not stop. One test runs the machine's own xdp-bench and
# takes, for each mode, a row or the line that says why it failed.
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_bench.sh"

t_tmpdir

STANDIN_BIN=$T_TMP/bin
DEV_NS=cspd$$
DEV_IF=pdB$$
BENCH_PID=

export STANDIN_CPUSTEER=$CPUSTEER
export STANDIN_PASS_OBJ=$TU_TOP/build/selftests/pass_count.bpf.o

# `cpusteer-bench bench ARGS...` with the stand-in as xdp-bench, its modes as
# MODES says (see the stand-in), to its end.
bench_standin() {	# MODES OUT ARGS...
	local modes=$1

	shift
	STANDIN_MODES=$modes PATH="$STANDIN_BIN:$PATH" bench_to_end "$@"
}

# The peer cases of a bench's JSON, "NAME RUNS_DONE FAILED" a line.
peer_cases() {	# JSON
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["scenarios"]:
    for c in s["cases"]:
        print(c["name"], c["runs_done"], "failed" if c.get("failed") else "-")
PY
}

# Working no-touch and l4-hash, a round-robin that exits 3: the report has
# every row and ratio, says once why round-robin failed, and leaves
# nothing behind.
test_peer_report() {
	local out=$T_TMP/peer.out json=$T_TMP/peer.json res

	bench_standin "round-robin=exit" "$out" --duration 1 --runs 1 --scenario peer \
		--json "$json"
	grep -Eq '^  peer/xdp-bench-round-robin run 1/1 +xdp-bench --program-mode round-robin failed \(exit status 3: Failed to attach XDP program: Invalid argument\); left out from here on$' "$out" ||
		t_fail "no line saying why round-robin failed"
	[ "$(grep -c 'round-robin failed' "$out")" = 2 ] ||
		t_fail "round-robin's failure is not said once live and once in the summary"
	grep -Eq '^peer +cpusteer-steer +[0-9.]+ Mpps \(x[0-9]+\.[0-9]+\)' "$out" ||
		t_fail "no cpusteer-steer row with its ratio in the summary"
	grep -Eq '^  cpusteer-steer +[0-9.]+ Mpps \(x[0-9.]+\) +x[0-9]+\.[0-9]+ ' "$out" ||
		t_fail "no ratio of cpusteer-steer to xdp-bench-l4-hash in the peer table"
	res=$(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("xdp_bench_version") != "xdp-bench version stand-in":
    print("xdp_bench_version", d.get("xdp_bench_version"))
sc = {s["name"]: s for s in d["scenarios"]}
cases = {c["name"]: c for c in sc.get("peer", {}).get("cases", [])}
want = ["xdp-bench-no-touch", "xdp-bench-round-robin", "xdp-bench-l4-hash",
        "cpusteer-notouch", "cpusteer-steer"]
if sorted(cases) != sorted(want):
    print("cases:", sorted(cases))
def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)
for name in want:
    c = cases.get(name, {})
    ran = name != "xdp-bench-round-robin"
    if c.get("runs_done") != (1 if ran else 0):
        print(name, "runs_done", c.get("runs_done"))
    if bool(c.get("failed")) == ran:
        print(name, "failed", c.get("failed"))
    if not ran:
        continue
    r = c["runs"][0]
    if not num(r.get("delivered_mpps")) or not r.get("frames_delivered"):
        print(name, "delivered", r.get("frames_delivered"), r.get("delivered_mpps"))
    if r["frames_sent"] != r["frames_received"] + r["frames_dropped"]:
        print(name, "sent", r["frames_sent"], "received", r["frames_received"],
              "dropped", r["frames_dropped"])
    want_count = 12345 if name.startswith("xdp-bench") else None
    if r.get("xdp_bench_counted") != want_count:
        print(name, "xdp_bench_counted", r.get("xdp_bench_counted"))
for name, base in (("xdp-bench-l4-hash", "xdp-bench-no-touch"),
                   ("cpusteer-steer", "cpusteer-notouch")):
    c = cases.get(name, {})
    if c.get("baseline") != base or not num((c.get("ratio_to_baseline") or {}).get("delivered_mpps")):
        print(name, "baseline", c.get("baseline"), "ratio", c.get("ratio_to_baseline"))
steer = cases.get("cpusteer-steer", {})
if steer.get("compared_with") != "xdp-bench-l4-hash" or not num(steer.get("delivered_ratio_to_compared")):
    print("cpusteer-steer compared with", steer.get("compared_with"),
          steer.get("delivered_ratio_to_compared"))
PY
)
	[ -z "$res" ] || t_fail "$res"
	expect_clean "$BENCH_PID" "the peer bench"
}

# SIGINT while xdp-bench's program steers the flood: bench stops it,
# unloads, removes the test bed and exits 130.
test_peer_sigint() {
	local out=$T_TMP/sigint.out rc

	STANDIN_MODES='' PATH="$STANDIN_BIN:$PATH" run_bg "$out" "$CPUSTEER_BENCH" bench --duration 5 \
		--runs 1 --scenario peer
	wait_for_line "$out" 'peer/xdp-bench-no-touch run 1/1 +1s' ||
		t_fail "no live line of xdp-bench-no-touch before the signal"
	kill -INT "$BG_PID"
	wait "$BG_PID"
	rc=$?
	t_eq "exit status after SIGINT" 130 "$rc"
	expect_clean "$BG_PID" "a bench interrupted under xdp-bench"
	pgrep -f "$STANDIN_BIN/xdp-bench" >/dev/null &&
		t_fail "the stand-in xdp-bench still runs"
}

# Machine's own xdp-bench, whatever its version does on this kernel: each
# mode gives a row or the line that says why it failed, and cpusteer's
# two cases run in any case.
test_peer_real_xdp_bench() {
	local out=$T_TMP/real.out json=$T_TMP/real.json mode name runs failed

	command -v xdp-bench >/dev/null || { t_skip "xdp-bench is not installed"; return; }
	bench_to_end "$out" --duration 1 --runs 1 --scenario peer --json "$json"
	for mode in no-touch round-robin l4-hash; do
		read -r name runs failed < <(peer_cases "$json" | grep "^xdp-bench-$mode ")
		if [ "$failed" = failed ]; then
			grep -q "xdp-bench --program-mode $mode failed (.*); left out from here on" "$out" ||
				t_fail "$mode failed without a line that says why"
		elif [ "${runs:-0}" != 1 ]; then
			t_fail "$mode neither ran nor failed: '$name $runs $failed'"
		fi
	done
	t_eq "cpusteer's cases that ran" "cpusteer-notouch 1 -,cpusteer-steer 1 -" \
		"$(peer_cases "$json" | grep '^cpusteer' | paste -sd,)"
	expect_clean "$BENCH_PID" "the peer bench"
}

# --- on a real interface ----------------------------------------------------

dev_cleanup() {
	ip netns del "$DEV_NS" 2>/dev/null
}

# A veth pair inside one namespace of the test's own; bench measures pdB.
dev_setup() {
	t_on_exit dev_cleanup
	ip netns add "$DEV_NS" &&
		ip -n "$DEV_NS" link add "pdA$$" type veth peer name "$DEV_IF" &&
		ip -n "$DEV_NS" link set "pdA$$" up &&
		ip -n "$DEV_NS" link set "$DEV_IF" up
}

in_dev_ns() { nsenter --net="/run/netns/$DEV_NS" "$@"; }

# What --dev left on pdB: an XDP program, libxdp's dispatcher pins, a
# cpusteer instance.
dev_leftovers() {
	local ifindex

	ip -n "$DEV_NS" link show "$DEV_IF" | grep -o 'prog/xdp id [0-9]*'
	ifindex=$(in_dev_ns cat "/sys/class/net/$DEV_IF/ifindex" 2>/dev/null)
	ls -d /sys/fs/bpf/xdp/dispatch-"$ifindex"-* 2>/dev/null
	ls -d /sys/fs/bpf/cpusteer/ns*/"$DEV_IF" 2>/dev/null
}

# --dev with the peer scenario: an xdp-bench that attaches a program
# without a cpumap and ignores SIGINT is reported, killed and its program
# detached; cpusteer's cases still run on the device.
test_peer_dev() {
	local out=$T_TMP/dev.out left rc

	dev_setup || { t_fail "cannot build the namespace for --dev"; return; }
	STANDIN_MODES="no-touch=exit round-robin=exit l4-hash=stuck" PATH="$STANDIN_BIN:$PATH" \
		in_dev_ns "$CPUSTEER_BENCH" bench --dev "$DEV_IF" --scenario peer --duration 1 --runs 1 \
		>"$out" 2>&1
	rc=$?
	t_eq "exit status of bench --dev" 0 "$rc"
	[ "$rc" = 0 ] || t_note_file "$out" output
	grep -q "xdp-bench --program-mode l4-hash failed (the program it attached to $DEV_IF uses no cpumap)" "$out" ||
		t_fail "no line saying that l4-hash's program uses no cpumap"
	grep -Eq '^peer +cpusteer-steer ' "$out" || t_fail "no cpusteer-steer row"
	grep -q '^test bed:' "$out" && t_fail "--dev described a test bed"
	left=$(dev_leftovers | tr '\n' ' ')
	[ -z "$left" ] || t_fail "bench --dev left behind on $DEV_IF: $left"
}

# A device that runs an XDP program already is refused, and its program
# stays; a scenario that needs the generator is refused with --dev.
test_peer_dev_refused() {
	local out=$T_TMP/busy.out id after

	[ -e "/run/netns/$DEV_NS" ] || { t_skip "no namespace for --dev"; return; }
	ip -n "$DEV_NS" link set dev "$DEV_IF" xdp obj "$STANDIN_PASS_OBJ" sec xdp ||
		{ t_fail "cannot attach a program to $DEV_IF"; return; }
	id=$(ip -n "$DEV_NS" link show "$DEV_IF" | grep -o 'prog/xdp id [0-9]*')
	in_dev_ns "$CPUSTEER_BENCH" bench --dev "$DEV_IF" --scenario peer --duration 1 --runs 1 \
		>"$out" 2>&1
	t_eq "exit status on a busy device" 1 "$?"
	grep -q "bench: $DEV_IF already runs XDP program .*: the peer scenario attaches its own there; unload that one first" "$out" ||
		t_fail "no line naming the program already there: $(cat "$out")"
	after=$(ip -n "$DEV_NS" link show "$DEV_IF" | grep -o 'prog/xdp id [0-9]*')
	t_eq "the program already there" "$id" "$after"
	ip -n "$DEV_NS" link set dev "$DEV_IF" xdp off
	in_dev_ns "$CPUSTEER_BENCH" bench --dev "$DEV_IF" --scenario steering-cost >"$out" 2>&1
	t_eq "exit status of --dev with steering-cost" 2 "$?"
	t_eq "its complaint" "cpusteer: bad --scenario with --dev: only peer runs on a real interface (the others need the generator)" "$(cat "$out")"
	in_dev_ns "$CPUSTEER_BENCH" bench --dev "$DEV_IF" --scenario peer --transmit packet-socket \
		>"$out" 2>&1
	t_eq "exit status of --dev with --transmit" 2 "$?"
	t_eq "its complaint" "cpusteer: bad --transmit with --dev: the bench sends nothing on a real interface" "$(cat "$out")"
}

# The tests, in order; t_plan_of makes the plan from this list.
all_tests() {
	t_run peer_report test_peer_report
	t_run peer_sigint test_peer_sigint
	t_run peer_real_xdp_bench test_peer_real_xdp_bench
	t_run peer_dev test_peer_dev
	t_run peer_dev_refused test_peer_dev_refused
}

t_plan_of all_tests
[ "$(id -u)" = 0 ] || t_skip_all "needs root"
command -v python3 >/dev/null || t_skip_all "needs python3 to read the JSON"
[ -r "$STANDIN_PASS_OBJ" ] || t_skip_all "$STANDIN_PASS_OBJ is not built (run make)"
mkdir -p "$STANDIN_BIN" && ln -s "$TU_TOP/selftests/tools/xdp-bench-standin" "$STANDIN_BIN/xdp-bench"
all_tests
t_exit
