#!/usr/bin/env bash
# dist/prometheus/: the alert and recording rules pass promtool's check
# and their unit tests (cpusteer-rules.test.yml: each alert where it
# fires and where it must not), every query of the Grafana dashboard
# parses, every metric the rules and the dashboard name has a series in
# a live scrape of a loaded instance, so that renaming a metric fails here
# rather than in an operator's silent dashboard, and every recording rule
# the dashboard reads is in the rules.
#
#   (the topology of lib_exporter.sh; the exporter serves in B)
#
# Not in kernel runs: promtool and files, the same on every kernel; what the exporter reads of a kernel is test_exporter.sh's
# shellcheck disable=SC2317 # the test functions run through t_run
set -u
# shellcheck source=selftests/lib_exporter.sh
. "$(dirname "$0")/lib_exporter.sh"

DIST=$NETNS_TOP/dist/prometheus
RULES=$DIST/cpusteer-rules.yml
DASHBOARD=$DIST/cpusteer-dashboard.json

tests() {
	t_run prometheus_rules_pass_promtool_check test_check_rules
	t_run prometheus_rules_unit_tests_pass test_rule_unit_tests
	t_run prometheus_dashboard_queries_parse test_dashboard_queries
	t_run prometheus_metric_check_finds_a_renamed_metric test_check_bites
	t_run prometheus_metrics_named_exist_in_a_live_scrape test_names_exist
}

have_promtool() {
	[ -x "$PROMTOOL" ] || t_fail "no promtool at $PROMTOOL (make setup fetches it)"
	[ -x "$PROMTOOL" ]
}

test_check_rules() {
	local out

	have_promtool || return
	out=$("$PROMTOOL" check rules "$RULES" 2>&1) || t_fail "promtool check rules: $out"
}

test_rule_unit_tests() {
	local out

	have_promtool || return
	# promtool finds rule_files relative to the test file's folder.
	out=$(cd "$DIST" && "$PROMTOOL" test rules cpusteer-rules.test.yml 2>&1) ||
		t_fail "promtool test rules: $out"
}

# Each query of the dashboard, with Grafana's variables given values, as
# the expression of a recording rule: promtool parses it.
test_dashboard_queries() {
	local f=$NETNS_TMP/dashboard-queries.yml out n

	have_promtool || return
	jq -e . "$DASHBOARD" >/dev/null || { t_fail "$DASHBOARD is not JSON"; return; }
	n=$(jq '[.. | objects | select(has("targets")) | .targets[]] | length' "$DASHBOARD")
	t_ge "queries" 20 "$n"
	t_eq "panels without a data source" 0 \
		"$(jq '[.panels[] | select(.type != "row" and .datasource == null)] | length' "$DASHBOARD")"
	t_eq "queries without an expression" 0 \
		"$(jq '[.. | objects | select(has("targets")) | .targets[] | select((.expr // "") == "")] | length' "$DASHBOARD")"
	jq -r '"groups:", "  - name: dashboard", "    rules:",
	       (.. | objects | select(has("targets")) | .targets[] | .expr |
		gsub("\\$__rate_interval"; "5m") | gsub("\\$__interval"; "1m") |
		gsub("\\$[a-z]+"; ".*") |
		"      - record: dashboard:query", "        expr: " + (. | tojson))' \
		"$DASHBOARD" >"$f"
	out=$("$PROMTOOL" check rules "$f" 2>&1) || t_fail "a dashboard query does not parse: $out"
}

# The metric names FILEs name: identifiers that start with cpusteer_,
# not recording rules' names (which hold colons).
names_in() {	# FILE...
	grep -ohE '[A-Za-z_:][A-Za-z0-9_:]*' "$@" | grep -E '^cpusteer_[a-z0-9_]+$' | sort -u
}

# The names of FILEs that have no series in SCRAPE: none of the instance
# of LABELS when the family has any instance's series, none at all when
# the family is the exporter's own.
missing_in() {	# SCRAPE LABELS FILE...
	local scrape=$1 labels=$2 name

	shift 2
	for name in $(names_in "$@"); do
		if grep -qE "^$name\{[^}]*interface=" "$scrape"; then
			grep -qF "$name{$labels" "$scrape" || echo "$name"
		else
			grep -qE "^$name(\{| )" "$scrape" || echo "$name"
		fi
	done
}

# The recording rules the dashboard reads that the rules do not record.
unrecorded() {
	local name

	while read -r name; do
		grep -qE "record: $name\$" "$RULES" || echo "$name"
	done < <(grep -ohE '[a-z_]+:[a-z0-9_]+:[a-z0-9_]+' "$DASHBOARD" | sort -u)
}

# The check below fails on a name that the exporter does not serve: one
# renamed in a copy of the rules.
test_check_bites() {
	local scrape=$NETNS_TMP/bites.prom renamed=$NETNS_TMP/renamed.yml

	cs exporter --once --no-tracepoints >"$scrape"
	sed 's/cpusteer_cpumap_enqueue_dropped_packets_total/cpusteer_cpumap_queue_full_drops_total/' \
		"$RULES" >"$renamed"
	t_eq "names missing after a rename" cpusteer_cpumap_queue_full_drops_total \
		"$(missing_in "$scrape" "$LB" "$renamed")"
}

test_names_exist() {
	local scrape=$NETNS_TMP/live.prom n

	start_exporter
	t_eq "status" 200 "$(scrape "$scrape")"
	n=$(names_in "$RULES" "$DASHBOARD" | wc -l)
	t_ge "metrics named by the rules and the dashboard" 20 "$n"
	t_eq "named but not in the scrape of vethB's instance" "" \
		"$(missing_in "$scrape" "$LB" "$RULES" "$DASHBOARD" | tr '\n' ' ')"
	t_eq "recording rules the dashboard reads but the rules lack" "" "$(unrecorded | tr '\n' ' ')"
}

t_plan_of tests
exporter_setup
tests
t_exit
