#!/usr/bin/env bash
# The steering program fuzzed against an independent reading of its spec:
# scripts/flow-fuzz.py generates frames from their structure (tags, IPv4
# options and fragments, IPv6 extension headers, VXLAN, GENEVE, GRE, IPIP
# and SIT) and mutates them (IP lengths, padding, cuts, EtherTypes, flag
# bits, bytes), runs them through `cpusteer classify --json` under three
# configurations and through scripts/flow-verdict.py (docs/flow-hash.md as
# code), and fails on any frame the two decide differently.
#
#   FLOW_FUZZ_SEED=N     another seed (default 1: the same frames each run)
#   FLOW_FUZZ_FRAMES=N   frames per run (default 20000; 2000 in kernel runs)
# e.g. FLOW_FUZZ_SEED=$RANDOM FLOW_FUZZ_FRAMES=200000 selftests/run.sh flow_fuzz
# Needs root (classify loads the BPF program) and python3.
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir
SEED=${FLOW_FUZZ_SEED:-1}
if [ "${SELFTEST_KERNEL_RUN:-}" = 1 ]; then
	FRAMES=${FLOW_FUZZ_FRAMES:-2000}	# ten to thirty times slower there
else
	FRAMES=${FLOW_FUZZ_FRAMES:-20000}
fi
FUZZ=$TU_TOP/scripts/flow-fuzz.py

# Runs the fuzzer with ARGS; its "# " lines are shown, and its exit status
# is left in FUZZ_STATUS.
fuzz() {	# ARGS...
	local line

	python3 "$FUZZ" --cpusteer "$CPUSTEER" "$@" >"$T_TMP/fuzz.out" 2>&1
	FUZZ_STATUS=$?
	while IFS= read -r line; do
		echo "#   ${line#\# }"
	done <"$T_TMP/fuzz.out"
}

kernel_program_agrees_with_spec() {
	fuzz --seed "$SEED" --frames "$FRAMES" --require-coverage --keep "$T_TMP/captures"
	[ "$FUZZ_STATUS" = 0 ] ||
		t_fail "seed $SEED, $FRAMES frames: the kernel program and docs/flow-hash.md disagree (exit status $FUZZ_STATUS)"
}

# The fuzzer must be able to fail: a classify that changes FIELD of the
# first frame that has one (a fallback reason, a pass reason) is caught.
fuzzer_catches_a_disagreement() {	# FIELD
	local liar=$T_TMP/cpusteer-liar

	cat >"$liar" <<EOF
#!/bin/sh
"$CPUSTEER" "\$@" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
for p in doc["packets"]:
    if p["$1"] is not None:
        p["$1"] = "invented"
        break
json.dump(doc, sys.stdout)
'
EOF
	chmod +x "$liar"
	python3 "$FUZZ" --cpusteer "$liar" --seed "$SEED" --frames 300 >"$T_TMP/liar.out" 2>&1
	t_eq "fuzzer's exit status with a classify that changes a $1" 1 "$?"
	grep -q "$1\|${1//_/ }" "$T_TMP/liar.out" ||
		t_fail "the fuzzer's report does not name the $1: $(head -n 3 "$T_TMP/liar.out")"
}

# scripts/flow-verdict.py's own output, from a capture, against classify's
# on sample-pcap's frames (all but the one shorter than Ethernet, which the
# kernel refuses to run).
verdict_script_agrees_on_sample_capture() {
	local opts=(--key 000102030405060708090a0b0c0d0e0f --inner all)

	"$CPUSTEER" sample-pcap "$T_TMP/sample.pcap" >/dev/null 2>&1 ||
		{ t_fail "cpusteer sample-pcap failed"; return; }
	"$CPUSTEER" classify --json "${opts[@]}" "$T_TMP/sample.pcap" >"$T_TMP/k.json" 2>&1 ||
		{ t_fail "cpusteer classify failed: $(head -n 1 "$T_TMP/k.json")"; return; }
	python3 "$TU_TOP/scripts/flow-verdict.py" "${opts[@]}" "$T_TMP/sample.pcap" >"$T_TMP/s.json" ||
		{ t_fail "scripts/flow-verdict.py failed"; return; }
	python3 -c '
import json, sys
kernel = json.load(open(sys.argv[1]))["packets"]
spec = json.load(open(sys.argv[2]))["packets"]
if len(kernel) != len(spec):
    print("%d frames from classify, %d from the script" % (len(kernel), len(spec)))
# A passed frame has the flow as far as classify parsed it: no spec of it.
fields = ("verdict", "reason", "tunnel", "hash", "bucket", "flow", "outer", "inner_fallback")
for k, s in zip(kernel, spec):
    if k["length"] < 14:
        continue
    for f in fields[:3] if k["verdict"] == "pass" else fields:
        if k[f] != s[f]:
            print("frame %d: %s: classify %s, script %s" % (k["index"], f, k[f], s[f]))
' "$T_TMP/k.json" "$T_TMP/s.json" >"$T_TMP/compare.out" 2>&1
	[ -s "$T_TMP/compare.out" ] && t_note_file "$T_TMP/compare.out" differs
}

all_tests() {
	t_run kernel_program_agrees_with_spec kernel_program_agrees_with_spec
	t_run fuzzer_catches_a_wrong_fallback fuzzer_catches_a_disagreement inner_fallback
	t_run fuzzer_catches_a_wrong_reason fuzzer_catches_a_disagreement reason
	t_run verdict_script_agrees_on_sample_capture verdict_script_agrees_on_sample_capture
}

t_plan_of all_tests
[ -x "$CPUSTEER" ] || t_abort "$CPUSTEER is missing: run make"
command -v python3 >/dev/null || t_abort "python3 is missing (make setup installs it)"
all_tests
t_exit
