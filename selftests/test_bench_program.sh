#!/usr/bin/env bash
# cpusteer-bench bench --program: every case is timed and each ratio is
# its case's figure over the no-touch redirect's of the same run (or over
# its named peer's), as the README's table reads them; the run leaves no
# pin behind, and a bad count is refused in one line. Figures themselves
# are the bench's business, not a test's: nothing here asserts a speed.
#
# Not in kernel runs: the bench's bookkeeping; the programs it times are the test_steer_* programs' there
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

REPORTS=program_reports_every_case_against_its_floor
REFUSES=program_refuses_a_bad_run_count

t_plan "$REPORTS" "$REFUSES"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (BPF_PROG_TEST_RUN)"
command -v jq >/dev/null || t_skip_all "needs jq to read the JSON"
t_tmpdir

# The cases the README's table names, each of which must be timed.
CASES="xdp_drop_floor notouch_redirect steer_ipv4_udp steer_ipv4_tcp steer_ipv6_udp
steer_ipv6_2ext_udp steer_ipv4_udp_siphash13 steer_ipv6_udp_siphash13 inner_vxlan"

# What cpusteer has pinned where this run's pins would go: anything at
# the top of its folder but a network namespace's folder, and this
# namespace's folder. Other namespaces' folders are not this run's: a
# file running beside this one (selftests/run.sh) pins an instance of
# its own in one.
own_pins() {
	ls /sys/fs/bpf/cpusteer 2>/dev/null | grep -v '^ns[0-9]*$'
	ls "/sys/fs/bpf/cpusteer/ns$("$TU_TOP/build/selftests/tools/netns_cookie")" 2>/dev/null
}

reports_every_case() {
	local json=$T_TMP/program.json pins_before pins_after name bad

	pins_before=$(own_pins)
	if ! "$CPUSTEER_BENCH" bench --program --runs 3 --repeat 20000 --json >"$json" 2>"$T_TMP/err"; then
		t_fail "bench --program failed: $(head -n 3 "$T_TMP/err")"
		return
	fi
	t_eq "runs" 3 "$(jq -r .runs "$json")"
	t_eq "floor" notouch_redirect "$(jq -r .floor "$json")"
	for name in $CASES; do
		[ "$(jq --arg n "$name" '[.cases[] | select(.name == $n)] | length' "$json")" = 1 ] ||
			t_fail "no single case $name in the report"
	done
	# Every figure a positive number, and every ratio its case's figure
	# over its floor's (or its peer's), to the six digits the JSON gives.
	bad=$(jq -r '
		(.cases[] | select(.name == "notouch_redirect") | .ns_per_packet) as $floor |
		(.cases | map({ key: .name, value: .ns_per_packet }) | from_entries) as $ns |
		.cases[] |
		if (.ns_per_packet > 0 | not) then "\(.name): ns_per_packet \(.ns_per_packet)"
		elif ((.ratio_to_notouch - .ns_per_packet / $floor) | fabs) > 5e-5 * .ratio_to_notouch
		then "\(.name): ratio_to_notouch \(.ratio_to_notouch), not \(.ns_per_packet / $floor)"
		elif .peer and ((.ratio_to_peer - .ns_per_packet / $ns[.peer]) | fabs) > 5e-5 * .ratio_to_peer
		then "\(.name): ratio_to_peer \(.ratio_to_peer), not \(.ns_per_packet / $ns[.peer])"
		else empty end' "$json")
	[ -z "$bad" ] || t_fail "figures that do not add up: $bad"
	pins_after=$(own_pins)
	t_eq "pins after the run" "$pins_before" "$pins_after"
}

refuses_bad_runs() {
	local out rc

	out=$("$CPUSTEER_BENCH" bench --program --runs 0 2>&1)
	rc=$?
	t_eq "exit status of --runs 0" 2 "$rc"
	t_eq "lines said" 1 "$(printf '%s\n' "$out" | grep -c .)"
	grep -q "run count '0'" <<<"$out" || t_fail "the refusal does not name the run count: $out"
}

t_run "$REPORTS" reports_every_case
t_run "$REFUSES" refuses_bad_runs
t_exit
