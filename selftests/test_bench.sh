#!/usr/bin/env bash
# The throughput bench and the demo: short runs that check counts and
# cleanup, not speed.
#
#   host namespace                    namespace csb<pid>
#   csbA<pid> 10.201.0.1  --veth-->   csbB<pid> 10.201.0.2
#   live-frames generator, CPU 0      cpusteer load --cpus 0-1 --remote drop
#
# Both commands build that test bed themselves (<pid> is their own pid)
# and must leave no namespace, link or pin behind: after a normal run,
# and after SIGINT in the middle of one.
#
# Not in kernel runs: the bench's bookkeeping, JSON, SVG and cleanup; the generator and the program it drives are test_trafficgen's and test_netns_counters' there (20 s on the host, 2 min under emulation)
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_bench.sh"

t_tmpdir

BENCH_JSON=$T_TMP/bench.json
BENCH_OUT=$T_TMP/bench.out
BENCH_PID=

test_bench_runs() {
	bench_to_end "$BENCH_OUT" --duration 1 --runs 1 --scenario steering-cost \
		--json "$BENCH_JSON"
	grep -q '^summary: median of 1 run' "$BENCH_OUT" || t_fail "no summary table in the output"
	grep -q 'steering-cost/steer-1000flows run 1/1' "$BENCH_OUT" ||
		t_fail "no live line for steer-1000flows"
}

# Every generated frame is accounted for: counted by the steering
# program, or refused by the receiving veth's ring.
test_frames_add_up() {
	[ -s "$BENCH_JSON" ] || { t_skip "bench wrote no JSON"; return; }
	local out

	out=$(python3 - "$BENCH_JSON" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for sc in d["scenarios"]:
    for c in sc["cases"]:
        r = c["runs"][0]
        s, rx, dr = r["frames_sent"], r["frames_received"], r["frames_dropped"]
        if not s or s != rx + dr:
            print("%s: sent %s, received %s + dropped %s" % (c["name"], s, rx, dr))
        red = sum(p["redirected"] for p in r["per_cpu"])
        if red != rx:
            print("%s: redirected per CPU sum %s, received %s" % (c["name"], red, rx))
EOF
)
	[ -z "$out" ] || t_fail "$out"
}

test_json_has_every_figure() {
	[ -s "$BENCH_JSON" ] || { t_skip "bench wrote no JSON"; return; }
	local out

	out=$(python3 - "$BENCH_JSON" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
want_cases = {"notouch-1flow", "steer-1flow", "notouch-1000flows", "steer-1000flows"}
fig = ["seconds", "frames_sent", "frames_received", "frames_dropped", "mpps",
       "frames_delivered", "delivered_mpps", "queue_full_drops", "jain_index", "bpf_ns_per_packet", "ipi_function_call",
       "ipi_reschedule", "per_cpu"]
cpu = ["cpu", "redirected", "kthread_processed", "softnet_processed",
       "softnet_dropped", "softnet_time_squeeze"]
if d.get("generator_transmit") not in ("live-frames", "packet-socket"):
    print("generator_transmit:", d.get("generator_transmit"))
sc = {s["name"]: s for s in d["scenarios"]}
if set(sc) != {"steering-cost"}:
    print("scenarios:", sorted(sc))
cases = {c["name"]: c for c in sc.get("steering-cost", {}).get("cases", [])}
if set(cases) != want_cases:
    print("cases:", sorted(cases))
for name, c in cases.items():
    for key in ("median", "runs"):
        if key not in c:
            print(name, "lacks", key)
    m = c.get("median", {})
    for k in fig:
        if m.get(k) is None:
            print(name, "median lacks", k)
    if len(m.get("per_cpu", [])) != d["ncpus"]:
        print(name, "per_cpu entries", len(m.get("per_cpu", [])))
    for p in m.get("per_cpu", []):
        for k in cpu:
            if p.get(k) is None:
                print(name, "per_cpu lacks", k)
    if name.startswith("steer"):
        r = c.get("ratio_to_baseline") or {}
        if not isinstance(r.get("mpps"), float) or not r.get("bpf_ns_per_packet"):
            print(name, "lacks ratios to the no-touch floor")
        if c.get("baseline") != name.replace("steer", "notouch"):
            print(name, "baseline", c.get("baseline"))
cp = d.get("control_plane_ms", {})
want = {"floor_idle": 1, "set_idle": 2, "status_idle": 1, "floor_flood": 1, "set_flood": 2,
        "status_flood": 1, "unload_flood": 1}
if any(len(cp.get(k, {}).get("samples", [])) != n for k, n in want.items()):
    print("control plane timings:", cp)
if "matches" not in d.get("kernel_log", {}):
    print("no kernel log check")
EOF
)
	[ -z "$out" ] || t_fail "$out"
}

test_svg_well_formed() {
	local svg=${BENCH_JSON%.json}.svg out

	[ -s "$svg" ] || { t_fail "no chart at $svg"; return; }
	out=$(python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
if root.tag != ns + "svg":
    print("root element", root.tag)
bars = [r for r in root.iter(ns + "rect") if r.get("height") != "100%"]
if len(bars) != 4:
    print("bars:", len(bars))
' "$svg" 2>&1)
	[ -z "$out" ] || t_fail "$out"
}

test_bench_cleans_up() {
	[ -n "$BENCH_PID" ] || { t_skip "bench did not run"; return; }
	expect_clean "$BENCH_PID" "cpusteer-bench bench"
}

# SIGINT while the generator floods the steered receiver: the run
# unloads cpusteer, removes the test bed and exits with 130.
test_sigint_cleans_up() {
	local out=$T_TMP/sigint.out rc

	run_bg "$out" "$CPUSTEER_BENCH" bench --duration 5 --runs 1 --scenario steering-cost \
		--json "$T_TMP/sigint.json"
	wait_for_line "$out" 'run 1/1' || t_fail "no live line before the signal"
	kill -INT "$BG_PID"
	wait "$BG_PID"
	rc=$?
	t_eq "exit status after SIGINT" 130 "$rc"
	[ ! -e "$T_TMP/sigint.json" ] || t_fail "an interrupted bench wrote its JSON"
	expect_clean "$BG_PID" "an interrupted bench"
}

test_demo_runs_and_cleans_up() {
	local out=$T_TMP/demo.out rc

	run_bg "$out" "$CPUSTEER_BENCH" demo --duration 3
	wait "$BG_PID"
	rc=$?
	t_eq "exit status of cpusteer-bench demo" 0 "$rc"
	grep -q '^RECEIVE' "$out" || t_fail "no per-CPU stats block in the demo's output"
	grep -q 'Jain index' "$out" || t_fail "no summary with a Jain index"
	[ "$rc" = 0 ] || t_note_file "$out" output
	expect_clean "$BG_PID" "cpusteer-bench demo"
}

# nic-hash: both programs ran on traffic through the sender's stack, and
# the kernel timed them (what the scenario compares).
test_nic_hash_runs() {
	local out=$T_TMP/nic.out json=$T_TMP/nic.json res

	command -v iperf3 >/dev/null || { t_skip "iperf3 is not installed"; return; }
	"$CPUSTEER" status --json | python3 -c 'import json, sys; sys.exit(not json.load(sys.stdin)["kernel"]["rx_hash_kfunc"])' ||
		{ t_skip "this kernel has no bpf_xdp_metadata_rx_hash (Linux 6.3 and later)"; return; }
	bench_to_end "$out" --duration 1 --runs 1 --scenario nic-hash --json "$json"
	res=$(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cases = {c["name"]: c for s in d["scenarios"] for c in s["cases"]}
for name in ("stack-multilinear", "stack-nic"):
    c = cases.get(name)
    if not c or not c["runs"]:
        print(name, "did not run")
        continue
    r = c["runs"][0]
    if not r["frames_received"] or not (r["bpf_ns_per_packet"] or 0) > 0:
        print(name, "received", r["frames_received"], "bpf ns", r["bpf_ns_per_packet"])
if cases.get("stack-nic", {}).get("baseline") != "stack-multilinear":
    print("stack-nic is not compared with stack-multilinear")
PY
)
	[ -z "$res" ] || t_fail "$res"
}

# receive-bound: the steering pair with every frame sent off the CPU
# that generates and runs the program, and the ratio the scenario is for.
test_receive_bound_runs() {
	local out=$T_TMP/rb.out json=$T_TMP/rb.json res

	[ "$(nproc)" -ge 2 ] || { t_skip "needs a CPU besides the generator's"; return; }
	# The packet socket, asked for by name, whatever this kernel allows.
	bench_to_end "$out" --duration 1 --runs 1 --scenario receive-bound --json "$json" \
		--transmit packet-socket
	res=$(python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("generator_transmit") != "packet-socket":
    print("generator_transmit:", d.get("generator_transmit"))
sc = {s["name"]: s for s in d["scenarios"]}
if set(sc) != {"receive-bound"}:
    print("scenarios:", sorted(sc))
cases = {c["name"]: c for c in sc.get("receive-bound", {}).get("cases", [])}
if set(cases) != {"notouch-1000flows", "steer-1000flows"}:
    print("cases:", sorted(cases))
for name, c in cases.items():
    r = c["runs"][0]
    if not r["frames_received"]:
        print(name, "received nothing")
    gen = [p for p in r["per_cpu"] if p["cpu"] == d["generator_cpu"]]
    if not gen or gen[0]["redirected"] != 0:
        print(name, "redirected to the generator's CPU:", gen)
steer = cases.get("steer-1000flows", {})
if steer.get("baseline") != "notouch-1000flows":
    print("steer-1000flows baseline", steer.get("baseline"))
if not isinstance((steer.get("ratio_to_baseline") or {}).get("mpps"), float):
    print("no Mpps ratio to the floor")
PY
)
	[ -z "$res" ] || t_fail "$res"
	grep -Eq '^receive-bound +steer-1000flows +[0-9.]+ Mpps \(x[0-9]+\.[0-9]+\)' "$out" ||
		t_fail "no steer-1000flows row with a ratio in the summary"
	expect_clean "$BENCH_PID" "the receive-bound bench"
}

# The tests, in order; t_plan_of makes the plan from this list.
all_tests() {
	t_run bench_runs test_bench_runs
	t_run bench_frames_add_up test_frames_add_up
	t_run bench_json_has_every_figure test_json_has_every_figure
	t_run bench_svg_well_formed test_svg_well_formed
	t_run bench_cleans_up test_bench_cleans_up
	t_run bench_sigint_cleans_up test_sigint_cleans_up
	t_run bench_nic_hash_runs test_nic_hash_runs
	t_run bench_receive_bound_runs test_receive_bound_runs
	t_run demo_runs_and_cleans_up test_demo_runs_and_cleans_up
}

t_plan_of all_tests
[ "$(id -u)" = 0 ] || t_skip_all "needs root"
command -v python3 >/dev/null || t_skip_all "needs python3 to read the JSON and SVG"
all_tests
t_exit
