#!/usr/bin/env bash
# The bench's chart (loader/bench/bench_chart.c), drawn from figures given
# by hand (selftests/tools/bench_chart): every text inside the canvas and
# no two case names on top of each other, however many scenarios it
# holds, and a whisker per case from its lowest run to its highest.
# A text's width is read as 0.6 em a character (sans-serif's average),
# independently of the estimate the chart itself makes.
#
# Not in kernel runs: no kernel in it, only a file written and read
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

CHART=$TU_TOP/build/selftests/tools/bench_chart
t_tmpdir

# Draws the chart of ARGS... and prints what is wrong with it, if anything.
check_chart() {	# NAME ARGS...
	local svg=$T_TMP/$1.svg
	shift
	"$CHART" "$svg" "$@" || { echo "bench_chart failed on $*"; return; }
	python3 - "$svg" "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
path, args = sys.argv[1], sys.argv[2:]
root = ET.parse(path).getroot()
width, height = float(root.get("width")), float(root.get("height"))
base_size = float(root.get("font-size"))

def extent(x, size, text, anchor):
    w = len(text) * size * 0.6
    return (x - w / 2, x + w / 2) if anchor == "middle" else (x, x + w)

texts = []
for t in root.iter(ns + "text"):
    size = float(t.get("font-size", base_size))
    anchor = t.get("text-anchor", "start")
    spans = list(t.iter(ns + "tspan"))
    y = float(t.get("y"))
    if not spans:
        texts.append((extent(float(t.get("x")), size, t.text or "", anchor), y, t.text))
    for s in spans:
        y += float(s.get("dy", 0))
        texts.append((extent(float(s.get("x")), size, s.text or "", anchor), y, s.text))
for (lo, hi), y, text in texts:
    if lo < 0 or hi > width or y > height or y < size:
        print(f"{text!r} ({lo:.0f}..{hi:.0f} px at y {y:.0f}) leaves the canvas of {width:.0f} x {height:.0f}")
rows = {}
for (lo, hi), y, text in texts:
    rows.setdefault(y, []).append((lo, hi, text))
for y, row in rows.items():
    row.sort()
    for a, b in zip(row, row[1:]):
        if b[0] < a[1]:
            print(f"{a[2]!r} and {b[2]!r} overlap at y {y:.0f}")

# Bars in the order given; a bar's height is its median on the group's
# scale, so a whisker's ends must sit at its runs' lowest and highest.
bars = [r for r in root.iter(ns + "rect") if r.get("height") != "100%"]
whiskers = [g for g in root.iter(ns + "g") if g.get("class") == "whisker"]
cases = [(args[i + 1], [float(v) for v in args[i + 2].split(",")]) for i in range(0, len(args), 3)]
if len(bars) != len(cases):
    print(f"{len(bars)} bars for {len(cases)} cases")
    sys.exit()
if len(whiskers) != sum(len(runs) > 1 for _, runs in cases):
    print(f"{len(whiskers)} whiskers for {sum(len(r) > 1 for _, r in cases)} cases of several runs")
    sys.exit()
w = iter(whiskers)
for bar, (name, runs) in zip(bars, cases):
    if len(runs) < 2:
        continue
    runs.sort()
    median = runs[len(runs) // 2] if len(runs) % 2 else (runs[len(runs) // 2 - 1] + runs[len(runs) // 2]) / 2
    foot = float(bar.get("y")) + float(bar.get("height"))
    per_unit = float(bar.get("height")) / median
    stem = next(next(w).iter(ns + "line"))
    ys = sorted([float(stem.get("y1")), float(stem.get("y2"))])
    want = [foot - runs[-1] * per_unit, foot - runs[0] * per_unit]
    if any(abs(a - b) > 2 for a, b in zip(ys, want)):
        print(f"{name}: whisker from y {ys[0]:.0f} to {ys[1]:.0f}, runs from {min(runs)} to {max(runs)} put it at {want[0]:.0f} to {want[1]:.0f}")
PY
}

# One scenario of two cases: the chart is as narrow as it gets.
test_one_scenario_fits() {
	local out

	out=$(check_chart one steering-cost notouch-1000flows 4.1,4.3,3.6 \
		steering-cost steer-1000flows 3.1,3.4,2.9)
	[ -z "$out" ] || t_fail "$out"
}

test_every_scenario_fits() {
	local out

	out=$(check_chart many steering-cost notouch-1000flows 4.1,4.3 steering-cost steer-1000flows 3.1,3.4 \
		receive-bound notouch-receive-bound 1.0,1.1 receive-bound steer-receive-bound 0.9,1.0 \
		remote-actions remote-none 2,2.1 remote-actions remote-drop-on-target 2.5,2.6 \
		cpumap-vs-rps rps-1000flows 0.5,0.6 cpumap-vs-rps cpumap-1000flows 1.5,1.4 \
		nic-hash udp-multilinear 1,1.1 nic-hash udp-nic-hash 1.2,1.3)
	[ -z "$out" ] || t_fail "$out"
}

# A single run has no spread to show; a case of one run beside one of
# five gets one whisker.
test_one_run_no_whisker() {
	local out

	out=$(check_chart single steering-cost notouch-1000flows 4 steering-cost steer-1000flows 3.9,2.5,3,3.5,3.1)
	[ -z "$out" ] || t_fail "$out"
}

all_tests() {
	t_run bench_chart_one_scenario_fits test_one_scenario_fits
	t_run bench_chart_every_scenario_fits test_every_scenario_fits
	t_run bench_chart_one_run_no_whisker test_one_run_no_whisker
}

t_plan_of all_tests
[ -x "$CHART" ] || t_skip_all "$CHART is not built (make all)"
command -v python3 >/dev/null || t_skip_all "needs python3 to read the chart"
all_tests
t_exit
