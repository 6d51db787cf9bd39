#!/usr/bin/env bash
# cpusteer-bench bench --scenario threaded-napi, short: one flood per side
# (threaded NAPI off, then on) while a loop changes the receiver's MTU,
# sets the same MTU again and runs `cpusteer set`. Checks that every
# figure is there for both sides, not what they are.
#
#   host namespace                    namespace csb<pid>
#   csbA<pid> 10.201.0.1  --veth-->   csbB<pid> 10.201.0.2
#   packet-socket generator, CPU 0    cpusteer load --remote drop
#                                       --threaded-napi off | on
#                                     control loop: ip link set mtu,
#                                       same mtu, cpusteer set --cpus
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_bench.sh"

t_tmpdir

JSON=$T_TMP/tn.json
OUT=$T_TMP/tn.out
BENCH_PID=

# From a packet socket on every kernel: live-frames test runs re-patch the
# kernel's XDP dispatcher as they start and end, and on 6.12 under QEMU
# that crashed the guest while a cpumap kthread ran its second-stage
# program through the dispatcher (README, Kernels). What this file checks
# does not depend on how the frames are sent.
test_threaded_napi_runs() {
	bench_to_end "$OUT" --scenario threaded-napi --flood-duration 3 --transmit packet-socket \
		--json "$JSON"
	grep -q '^threaded-napi: one 3 s flood per side' "$OUT" ||
		t_fail "no threaded-napi section in the summary"
	grep -q '^  kernel log, threaded-on: [0-9]* (rcu_stall [0-9]*, soft_lockup' "$OUT" ||
		t_fail "no kernel log counts by kind for threaded-on"
}

# Both sides, each with its flood's figures, every operation timed at
# least once (worst >= p99 > 0, as many samples as the count), the drops
# by place and the kernel log by kind.
test_json_has_both_sides() {
	[ -s "$JSON" ] || { t_skip "bench wrote no JSON"; return; }
	local out

	out=$(python3 - "$JSON" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sc = {s["name"]: s for s in d["scenarios"]}
if set(sc) != {"threaded-napi"}:
    print("scenarios:", sorted(sc))
cases = {c["name"]: c for c in sc.get("threaded-napi", {}).get("cases", [])}
if set(cases) != {"threaded-off", "threaded-on"}:
    print("cases:", sorted(cases))
kinds = {"rcu_stall", "soft_lockup", "hung_task", "warning", "bug"}
for name, c in cases.items():
    on = name == "threaded-on"
    if c.get("threaded_napi") is not on or c.get("threaded_napi_seen") is not on:
        print(name, "threaded NAPI asked", c.get("threaded_napi"), "seen",
              c.get("threaded_napi_seen"))
    if c.get("flood_s") != 3:
        print(name, "flood_s", c.get("flood_s"))
    r = (c.get("runs") or [{}])[0]
    if not (r.get("mpps") or 0) > 0 or not r.get("frames_received"):
        print(name, "delivered nothing:", r.get("mpps"), r.get("frames_received"))
    drops = c.get("drops", {})
    for k in ("receiving_veth", "cpumap_queue_full", "softnet_backlog"):
        if not isinstance(drops.get(k), int):
            print(name, "drops lack", k)
    ops = c.get("operations_ms", {})
    if set(ops) != {"ip_link_set_mtu", "netlink_noop", "cpusteer_set"}:
        print(name, "operations:", sorted(ops))
    for op, t in ops.items():
        n, p99, worst = t.get("count", 0), t.get("p99") or 0, t.get("worst") or 0
        if not (n > 0 and worst >= p99 > 0 and len(t.get("samples", [])) == n):
            print(name, op, "count", n, "p99", p99, "worst", worst)
    k = c.get("kernel_log", {})
    if k.get("checked") is not True or set(k.get("by_kind", {})) != kinds or \
       not all(isinstance(v, int) for v in k["by_kind"].values()) or \
       sum(k["by_kind"].values()) != k.get("matches"):
        print(name, "kernel log:", k)
if set(d.get("kernel_log", {}).get("by_kind", {})) != kinds:
    print("run's kernel log:", d.get("kernel_log"))
PY
)
	[ -z "$out" ] || t_fail "$out"
}

test_threaded_napi_cleans_up() {
	[ -n "$BENCH_PID" ] || { t_skip "bench did not run"; return; }
	expect_clean "$BENCH_PID" "cpusteer-bench bench --scenario threaded-napi"
}

# One line on stderr, usage status 2, nothing on stdout.
# Without --scenario threaded-napi the option changes nothing: it is not
# in the default set.
test_bad_flood_duration() {
	local arg out err rc

	for arg in 0 -1 abc 3601 '' 1e9 nan; do
		out=$("$CPUSTEER_BENCH" bench --scenario threaded-napi --flood-duration "$arg" \
			2>"$T_TMP/err")
		rc=$?
		err=$(cat "$T_TMP/err")
		t_eq "exit status for --flood-duration '$arg'" 2 "$rc"
		t_eq "stdout for --flood-duration '$arg'" "" "$out"
		t_eq "stderr lines for --flood-duration '$arg'" 1 "$(wc -l <"$T_TMP/err")"
		[[ $err == *"--flood-duration"* ]] || t_fail "the error does not name the option: $err"
	done
	out=$("$CPUSTEER_BENCH" bench --flood-duration 3 2>"$T_TMP/err")
	rc=$?
	t_eq "exit status for --flood-duration without threaded-napi" 2 "$rc"
	t_eq "stdout without threaded-napi" "" "$out"
	t_eq "stderr lines without threaded-napi" 1 "$(wc -l <"$T_TMP/err")"
}

all_tests() {
	t_run bad_flood_duration test_bad_flood_duration
	t_run threaded_napi_runs test_threaded_napi_runs
	t_run threaded_napi_json_has_both_sides test_json_has_both_sides
	t_run threaded_napi_cleans_up test_threaded_napi_cleans_up
}

t_plan_of all_tests
[ "$(id -u)" = 0 ] || t_skip_all "needs root"
command -v python3 >/dev/null || t_skip_all "needs python3 to read the JSON"
all_tests
t_exit
