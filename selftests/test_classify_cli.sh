#!/usr/bin/env bash
# cpusteer classify and sample-pcap from the command line: the --json
# schema, reproducibility with a fixed --key, how far a new key moves
# flows, and that every bad configuration is refused the same way (exit
# non-zero, one "cpusteer: " line on stderr, nothing on stdout).
# Needs root (classify loads the BPF program) and python3 for the JSON.
#
# Not in kernel runs: the command's JSON, keys and refusals, the same on every kernel; its answers are the program's test runs, which the test_steer_* programs check there (5 s on the host, 2 min under emulation)
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

KEY_A=00112233445566778899aabbccddeeff
KEY_B=0f1e2d3c4b5a69788796a5b4c3d2e1f0

t_tmpdir
SAMPLE=$T_TMP/sample.pcap
FLOWS=$T_TMP/flows1000.pcap
SAMPLE_FRAMES=
FLOWS_FRAMES=

# Runs python3 CODE ARGS; each line it prints is a failure note, except
# lines starting "# ", which are shown as they are.
py_check() {
	local out rc line

	out=$(python3 -c "$1" "${@:2}" 2>&1)
	rc=$?
	while IFS= read -r line; do
		case $line in
		"") ;;
		"# "*) echo "#   ${line#\# }" ;;	# a figure worth showing, not a failure
		*) t_fail "$line" ;;
		esac
	done <<<"$out"
	[ $rc = 0 ] || [ -n "$out" ] || t_fail "python3 check exited with status $rc"
}

# "wrote N frames to FILE" -> N
frames_written() {
	sed -n 's/^wrote \([0-9][0-9]*\) frames to .*/\1/p' "$1"
}

setup_captures() {
	if ! "$CPUSTEER" sample-pcap "$SAMPLE" >"$T_TMP/sample.out" 2>"$T_TMP/sample.err"; then
		t_fail "cpusteer sample-pcap $SAMPLE failed"
		t_note_file "$T_TMP/sample.err" stderr
		return
	fi
	SAMPLE_FRAMES=$(frames_written "$T_TMP/sample.out")
	[ -n "$SAMPLE_FRAMES" ] || t_fail "sample-pcap did not say how many frames it wrote"
	if ! "$CPUSTEER" sample-pcap --flows 1000 "$FLOWS" >"$T_TMP/flows.out" 2>"$T_TMP/flows.err"; then
		t_fail "cpusteer sample-pcap --flows 1000 failed"
		t_note_file "$T_TMP/flows.err" stderr
		return
	fi
	FLOWS_FRAMES=$(frames_written "$T_TMP/flows.out")
	# The N flows come first, then one frame of each special case.
	[ -n "$FLOWS_FRAMES" ] && [ "$FLOWS_FRAMES" -gt 1000 ] ||
		t_fail "sample-pcap --flows 1000 wrote '$FLOWS_FRAMES' frames, expected more than 1000"
}

have_captures() {
	[ -n "$SAMPLE_FRAMES" ] && [ -n "$FLOWS_FRAMES" ] && return 0
	t_fail "no sample captures (see sample_pcap_writes_captures)"
	return 1
}

classify_json() {	# OUTFILE ARGS...
	local out=$1

	shift
	if ! "$CPUSTEER" classify --json "$@" >"$out" 2>"$out.err"; then
		t_fail "cpusteer classify --json $* exited with an error"
		t_note_file "$out.err" stderr
		return 1
	fi
}

# ---- tests ----

sample_pcap_writes_captures() {
	setup_captures
}

JSON_SCHEMA_CHECK='
import json, sys
path, frames = sys.argv[1], int(sys.argv[2])
try:
    doc = json.load(open(path))
except ValueError as e:
    print("output is not JSON: %s" % e)
    sys.exit(1)
packets = doc.get("packets") if isinstance(doc, dict) else None
if not isinstance(packets, list):
    print("no \"packets\" array at the top level")
    sys.exit(1)
if len(packets) != frames:
    print("%d packets, expected %d (one per frame)" % (len(packets), frames))
verdicts = {"redirect", "pass", "drop", "aborted", "invalid"}
errors = []
for n, p in enumerate(packets, 1):
    if not isinstance(p, dict):
        errors.append("packet %d is not an object" % n)
        continue
    if p.get("index") != n:
        errors.append("packet %d has index %r: not in capture order" % (n, p.get("index")))
    v, cpu = p.get("verdict"), p.get("cpu")
    if v not in verdicts:
        errors.append("packet %d: verdict %r not in %s" % (n, v, sorted(verdicts)))
    if "cpu" not in p or not (cpu is None or (type(cpu) is int and cpu >= 0)):
        errors.append("packet %d: cpu %r is neither a number nor null" % (n, cpu))
    if (v == "redirect") != (type(cpu) is int):
        errors.append("packet %d: verdict %r with cpu %r" % (n, v, cpu))
    if type(p.get("length")) is not int:
        errors.append("packet %d: length %r" % (n, p.get("length")))
for e in errors[:8]:
    print(e)
if len(errors) > 8:
    print("... and %d more" % (len(errors) - 8))
'

classify_json_lists_packets_in_capture_order() {
	have_captures || return
	classify_json "$T_TMP/schema.json" --key "$KEY_A" "$SAMPLE" || return
	py_check "$JSON_SCHEMA_CHECK" "$T_TMP/schema.json" "$SAMPLE_FRAMES"
}

classify_json_marks_short_frame_invalid() {
	have_captures || return
	classify_json "$T_TMP/short.json" --key "$KEY_A" "$SAMPLE" || return
	py_check '
import json, sys
packets = json.load(open(sys.argv[1]))["packets"]
short = [p for p in packets if p["length"] == 10]
if len(short) != 1:
    print("%d frames of 10 bytes, expected the one sample-pcap writes" % len(short))
for p in short:
    if p["verdict"] != "invalid" or p["cpu"] is not None:
        print("10-byte frame %d: verdict %r, cpu %r; expected \"invalid\", null"
              % (p["index"], p["verdict"], p["cpu"]))
for p in packets:
    if p["verdict"] == "invalid" and p["length"] >= 14:
        print("frame %d of %d bytes is \"invalid\"; only frames under 14 bytes are"
              % (p["index"], p["length"]))
' "$T_TMP/short.json"
}

classify_json_gives_reasons_for_passed_frames() {
	have_captures || return
	classify_json "$T_TMP/reasons.json" --key "$KEY_A" "$SAMPLE" || return
	py_check '
import json, sys
packets = json.load(open(sys.argv[1]))["packets"]
reasons = set()
for p in packets:
    if p["verdict"] == "pass":
        if not isinstance(p.get("reason"), str):
            print("passed frame %d has reason %r" % (p["index"], p.get("reason")))
        reasons.add(p.get("reason"))
    elif p["verdict"] == "redirect" and p.get("reason") is not None:
        print("redirected frame %d has reason %r" % (p["index"], p["reason"]))
for want in ("non_ip", "bad_ip_length", "truncated_l4"):
    if want not in reasons:
        print("no frame passed as %s (sample-pcap writes ARP, a TCP frame cut short of its"
              " Total Length and one whose Total Length ends in its ports); got %s"
              % (want, sorted(reasons)))
' "$T_TMP/reasons.json"
}

# The path of each frame: the tags, the PPPoE session and the labels the
# program walked, with their fields, in JSON and in the text; nothing for
# an untagged frame.
classify_names_the_path() {
	have_captures || return
	classify_json "$T_TMP/path.json" --key "$KEY_A" "$SAMPLE" || return
	py_check '
import json, sys
packets = json.load(open(sys.argv[1]))["packets"]
def path(p):
    q = p.get("path") or {}
    return ([(t["tpid"], t["vid"]) for t in q.get("vlan", [])], q.get("pppoe_session"),
            [(m["label"], m["bottom"]) for m in q.get("mpls", [])])
paths = [path(p) for p in packets]
want = {
    "one tag": ([(0x8100, 100)], None, []),
    "QinQ": ([(0x88a8, 100), (0x8100, 200)], None, []),
    "PPPoE behind a tag": ([(0x8100, 300)], 7, []),
    "two labels": ([], None, [(100, False), (200, True)]),
}
for what, w in want.items():
    if paths.count(w) != 1:
        print("%s: %d frames with path %r, expected 1" % (what, paths.count(w), w))
if paths[0] != ([], None, []):
    print("the first, untagged frame has path %r" % (paths[0],))
for p in packets:
    if p["verdict"] != "invalid" and not isinstance(p.get("path"), dict):
        print("frame %d: path %r is no object" % (p["index"], p.get("path")))
' "$T_TMP/path.json"
	"$CPUSTEER" classify --key "$KEY_A" "$SAMPLE" >"$T_TMP/path.txt" 2>&1 ||
		t_fail "classify (text) failed"
	grep -q '\[vlan 0x8100:300, pppoe session 7\]' "$T_TMP/path.txt" ||
		t_fail "no text row names the tag and the PPPoE session"
	grep -q '\[mpls 100 200/s\]' "$T_TMP/path.txt" ||
		t_fail "no text row names the two labels"
}

classify_same_key_gives_identical_output() {
	local fmt

	have_captures || return
	for fmt in --json ""; do
		"$CPUSTEER" classify $fmt --key "$KEY_B" "$FLOWS" >"$T_TMP/same1" 2>&1 ||
			t_fail "classify $fmt run 1 failed"
		"$CPUSTEER" classify $fmt --key "$KEY_B" "$FLOWS" >"$T_TMP/same2" 2>&1 ||
			t_fail "classify $fmt run 2 failed"
		cmp -s "$T_TMP/same1" "$T_TMP/same2" ||
			t_fail "two runs of classify ${fmt:-(table)} --key $KEY_B differ: $(diff "$T_TMP/same1" "$T_TMP/same2" | sed -n 2p | cut -c1-160)"
		[ -s "$T_TMP/same1" ] || t_fail "classify ${fmt:-(table)} printed nothing"
	done
}

classify_key_change_moves_about_half_of_flows() {
	have_captures || return
	classify_json "$T_TMP/key_a.json" --key "$KEY_A" "$FLOWS" || return
	classify_json "$T_TMP/key_b.json" --key "$KEY_B" "$FLOWS" || return
	py_check '
import json, sys
a = json.load(open(sys.argv[1]))["packets"][:1000]
b = json.load(open(sys.argv[2]))["packets"][:1000]
both = [(x, y) for x, y in zip(a, b) if x["verdict"] == y["verdict"] == "redirect"]
if len(both) != 1000:
    print("%d of the first 1000 frames (the flows) redirected under both keys, expected 1000"
          % len(both))
moved = sum(1 for x, y in both if x["cpu"] != y["cpu"])
print("# %d of %d flows moved to another CPU" % (moved, len(both)))
if not 350 <= moved <= 650:
    print("a new key moved %d of 1000 flows, expected 350 to 650" % moved)
' "$T_TMP/key_a.json" "$T_TMP/key_b.json"
}

# scripts/flow-hash.py is docs/flow-hash.md as code, written from the text:
# first held against published SipHash-1-3 values (the reference
# implementation's, all-zero key), then used to recompute what the kernel
# program chose.
FLOW_HASH_PY='
import importlib.util, sys
spec = importlib.util.spec_from_file_location("flow_hash", sys.argv[1])
flow_hash = importlib.util.module_from_spec(spec)
spec.loader.exec_module(flow_hash)
'

flow_hash_script_matches_published_siphash13() {
	py_check "$FLOW_HASH_PY"'
for message, want in ((b"", 0xd1fba762150c532c), (b"\x00", 0x68a914128e01e473),
                      (b"siphash", 0x8264ceeccb16bcbe)):
    got = flow_hash.siphash13(bytes(16), message)
    if got != want:
        print("SipHash-1-3 of %r under the zero key: %#x, published %#x" % (message, got, want))
' "$TU_TOP/scripts/flow-hash.py"
}

# Every redirected frame of the sample capture with a flow, under each
# hash, with and without --symmetric, against the script's hash and bucket.
# The sample's G-PDU (TEID 0x00c0ffee, 10.100.0.1 to .2): by tunnel, its
# flow is the outer addresses with the TEID; by the inner flow, the TCP
# flow inside, with the tunnel and its outer flow beside it.
classify_shows_gtpu_both_ways() {
	have_captures || return
	"$CPUSTEER" classify --key "$KEY_A" --inner gtpu-teid "$SAMPLE" >"$T_TMP/teid.txt" 2>&1 ||
		t_fail "classify --inner gtpu-teid failed"
	grep -q 'udp 10.100.0.1 -> 10.100.0.2 teid 0x00c0ffee  \[tunnel of gtpu-teid udp 10.100.0.1:2152 -> 10.100.0.2:2152\]' \
		"$T_TMP/teid.txt" || t_fail "no text row shows the tunnel by its TEID"
	"$CPUSTEER" classify --key "$KEY_A" --inner gtpu "$SAMPLE" >"$T_TMP/gtpu.txt" 2>&1 ||
		t_fail "classify --inner gtpu failed"
	grep -q '^[0-9].*tcp .*\[inner of gtpu udp 10.100.0.1:2152 -> 10.100.0.2:2152\]' \
		"$T_TMP/gtpu.txt" || t_fail "no text row shows the inner flow of the G-PDU"
	classify_json "$T_TMP/teid.json" --key "$KEY_A" --inner gtpu-teid "$SAMPLE" || return
	py_check '
import json, sys
rows = [p for p in json.load(open(sys.argv[1]))["packets"] if p["tunnel"] == "gtpu-teid"]
if len(rows) != 1:
    print("%d frames by tunnel, expected 1" % len(rows))
elif rows[0]["flow"] != {"family": 4, "proto": "udp", "src": "10.100.0.1",
                         "dst": "10.100.0.2", "teid": 0xc0ffee}:
    print("the tunnel flow is %r" % (rows[0]["flow"],))
' "$T_TMP/teid.json"
}

classify_agrees_with_flow_hash_script() {
	local opts n=0

	have_captures || return
	for opts in "" "--symmetric" "--hash siphash13" "--hash siphash13 --symmetric"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # the options are words
		classify_json "$T_TMP/spec$n.json" --key "$KEY_A" --buckets 509 $opts "$SAMPLE" || return
		py_check "$FLOW_HASH_PY"'
import ipaddress, json
protos = {"tcp": 6, "udp": 17, "sctp": 132, "icmp": 1, "icmpv6": 58}
key, opts = bytes.fromhex(sys.argv[2]), sys.argv[4].split()
checked = 0
for p in json.load(open(sys.argv[3]))["packets"]:
    f = p.get("flow")
    if p["verdict"] != "redirect" or not f:
        continue
    message = flow_hash.flow_message(ipaddress.ip_address(f["src"]), ipaddress.ip_address(f["dst"]),
                                     protos[f["proto"]], f["sport"], f["dport"],
                                     "--symmetric" in opts)
    h = flow_hash.flow_hash(key, message, "siphash13" if "siphash13" in opts else "multilinear")
    checked += 1
    if (p["hash"], p["bucket"]) != (h, h * 509 >> 32):
        print("frame %d (%s): kernel hash %d bucket %d, specification %d bucket %d"
              % (p["index"], " ".join(opts) or "defaults", p["hash"], p["bucket"], h, h * 509 >> 32))
if checked < 20:
    print("only %d frames checked (%s)" % (checked, " ".join(opts)))
' "$TU_TOP/scripts/flow-hash.py" "$KEY_A" "$T_TMP/spec$n.json" "$opts"
	done
}

# Runs classify with bad options: it must exit non-zero (not by a signal),
# print exactly one line on stderr, starting "cpusteer: ", and nothing on
# stdout.
expect_refused() {	# ARGS...
	local out=$T_TMP/refused.out err=$T_TMP/refused.err rc lines

	"$CPUSTEER" classify "$@" >"$out" 2>"$err"
	rc=$?
	if [ $rc = 0 ] || [ $rc -ge 126 ]; then
		t_fail "classify $*: exit status $rc, expected a non-zero status of its own"
	fi
	if [ -s "$out" ]; then
		t_fail "classify $*: expected nothing on stdout, got $(wc -c <"$out") bytes"
		t_note_file "$out" stdout
	fi
	lines=$(grep -c '' "$err")
	if [ "$lines" != 1 ]; then
		t_fail "classify $*: expected one line on stderr, got $lines"
		t_note_file "$err" stderr
	elif ! grep -q '^cpusteer: ' "$err"; then
		t_fail "classify $*: stderr line does not start with 'cpusteer: ': $(cat "$err")"
	fi
}

refuses_absent_cpu() {	# CPU
	if [ -e "/sys/devices/system/cpu/cpu$1" ]; then
		t_skip "CPU $1 exists on this machine"
		return
	fi
	have_captures || return
	expect_refused --cpus "$1" "$SAMPLE"
}

refuses_absent_non_ip_cpu() {	# CPU
	if [ -e "/sys/devices/system/cpu/cpu$1" ]; then
		t_skip "CPU $1 exists on this machine"
		return
	fi
	refuses --non-ip "cpu:$1"
}

refuses() {	# ARGS... (the sample capture is added last)
	have_captures || return
	expect_refused "$@" "$SAMPLE"
}

refuses_capture() {	# FILE
	expect_refused --key "$KEY_A" "$1"
}

refuses_non_ethernet_capture() {
	local f=$T_TMP/rawip.pcap

	# A valid pcap header with link type 101 (raw IP) and one record.
	python3 -c '
import struct, sys
ip = bytes([0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2])
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
    f.write(struct.pack("<IIII", 1700000000, 0, len(ip), len(ip)) + ip)
' "$f" || { t_fail "cannot write a raw-IP capture"; return; }
	expect_refused "$f"
}

classify_help_exits_zero() {
	local rc

	"$CPUSTEER" classify --help >"$T_TMP/help.out" 2>"$T_TMP/help.err"
	rc=$?
	t_eq "classify --help exit status" 0 "$rc"
	grep -q '^usage: cpusteer classify' "$T_TMP/help.out" ||
		t_fail "classify --help does not print its usage on stdout"
	grep -q -- '--key' "$T_TMP/help.out" || t_fail "classify --help does not list --key"
	[ -s "$T_TMP/help.err" ] && t_fail "classify --help wrote to stderr: $(head -n1 "$T_TMP/help.err")"
}

garbage=$T_TMP/garbage.pcap

# The tests, in order; t_plan_of makes the plan from this list.
all_tests() {
	t_run sample_pcap_writes_captures sample_pcap_writes_captures
	t_run classify_json_lists_packets_in_capture_order classify_json_lists_packets_in_capture_order
	t_run classify_json_marks_short_frame_invalid classify_json_marks_short_frame_invalid
	t_run classify_json_gives_reasons_for_passed_frames classify_json_gives_reasons_for_passed_frames
	t_run classify_names_the_path classify_names_the_path
	t_run classify_shows_gtpu_both_ways classify_shows_gtpu_both_ways
	t_run classify_same_key_gives_identical_output classify_same_key_gives_identical_output
	t_run classify_key_change_moves_about_half_of_flows classify_key_change_moves_about_half_of_flows
	t_run flow_hash_script_matches_published_siphash13 flow_hash_script_matches_published_siphash13
	t_run classify_agrees_with_flow_hash_script classify_agrees_with_flow_hash_script
	t_run classify_refuses_unknown_cpu_99 refuses_absent_cpu 99
	t_run classify_refuses_absent_cpu_2 refuses_absent_cpu 2
	t_run classify_refuses_key_too_short refuses --key 0123456789abcdef
	t_run classify_refuses_key_too_long refuses --key "${KEY_A}0"
	t_run classify_refuses_key_not_hex refuses --key 0123456789abcdefghijklmnopqrstuv
	t_run classify_refuses_empty_cpu_list refuses --cpus ''
	t_run classify_refuses_malformed_cpu_list refuses --cpus 0-
	t_run classify_refuses_zero_buckets refuses --buckets 0
	t_run classify_refuses_65537_buckets refuses --buckets 65537
	t_run classify_refuses_fewer_buckets_than_cpus refuses --cpus 0-1 --buckets 1
	t_run classify_refuses_missing_capture refuses_capture "$T_TMP/no-such-file.pcap"
	t_run classify_refuses_garbage_capture refuses_capture "$garbage"
	t_run classify_refuses_empty_capture refuses_capture "$T_TMP/empty.pcap"
	t_run classify_refuses_non_ethernet_capture refuses_non_ethernet_capture
	t_run classify_refuses_all_zero_weights refuses --cpus 0-1 --weights 0,0
	t_run classify_refuses_too_few_weights refuses --cpus 0-1 --weights 1
	t_run classify_refuses_too_many_weights refuses --cpus 0-1 --weights 1,2,3
	t_run classify_refuses_bad_non_ip_word refuses --non-ip sometimes
	t_run classify_refuses_bad_non_ip_cpu_number refuses --non-ip cpu:x
	t_run classify_refuses_non_ip_cpu_absent refuses_absent_non_ip_cpu 200
	t_run classify_refuses_bad_hash refuses --hash md5
	t_run classify_refuses_unknown_tunnel refuses --inner vxlan,l2tp
	t_run classify_refuses_empty_inner_item refuses --inner vxlan,,gre
	t_run classify_refuses_port_on_gre refuses --inner gre:47
	t_run classify_refuses_inner_port_65536 refuses --inner geneve:65536
	t_run classify_refuses_five_udp_ports refuses --inner vxlan:1,vxlan:2,vxlan:3,geneve:4,geneve:5
	t_run classify_refuses_none_in_a_list refuses --inner none,gre
	t_run classify_refuses_both_gtpu_kinds_on_one_port refuses --inner gtpu,gtpu-teid
	t_run classify_help_exits_zero classify_help_exits_zero
}

t_plan_of all_tests
[ -x "$CPUSTEER" ] || t_abort "$CPUSTEER is missing: run make"
head -c 4096 /dev/urandom >"$garbage"
: >"$T_TMP/empty.pcap"
all_tests
t_exit
