# shellcheck shell=bash
# Shared by the exporter's tests (selftests/test_exporter*.sh): the
# topology of lib_netns.sh with cpusteer loaded on vethB, an exporter
# serving in B, and readers of what it serves.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   no IPv6, static neighbours            cpusteer load --cpus 0-1
#                                         cpusteer exporter (127.0.0.1:19435 of B)
#                                         curl http://127.0.0.1:19435/metrics
#
# The exporter runs in B, so its port is B's own. Other cpusteer instances
# on the machine (other test runs) show in its output too: the checks look
# only at the series of this run's instances.

# shellcheck source=selftests/lib_netns.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib_netns.sh"

PROMTOOL=${PROMTOOL:-$NETNS_TOP/build/tools/promtool}
PORT=19435
EXP_PID=			# the exporter serving on B's $PORT
FAMILIES=			# families in a whole exposition
COOKIE_B=''
LB=''				# the label prefix of B's instance

# cpusteer in B: its stdout in $OUT, stderr in $ERR, exit status in $RC.
cs_run() {
	OUT=$(cs "$@" 2>"$NETNS_TMP/err")
	RC=$?
	ERR=$(<"$NETNS_TMP/err")
}

# GET (or CURL-ARGS) of PATH on B's exporter into FILE; prints the status.
scrape() {	# FILE [PATH [CURL-ARGS...]]
	local file=$1 path=${2:-/metrics}

	shift $(($# < 2 ? $# : 2))
	in_b curl -s -m 20 -o "$file" -w '%{http_code}' "$@" "http://127.0.0.1:$PORT$path"
}

# The value of one series (its name and labels as the text spells them).
value() {	# FILE SERIES
	S=$2 awk '$1 == ENVIRON["S"] { print $2; found = 1 } END { if (!found) print "none" }' "$1"
}

# The sum of a family's series of one instance (LABELS: its label prefix).
family_sum() {	# FILE FAMILY LABELS
	P="$2{$3" awk 'index($1, ENVIRON["P"]) == 1 { s += $2 } END { print s + 0 }' "$1"
}

# How much a packet family of B's instance grew from one scrape to another.
delta() {	# NAME BEFORE AFTER
	echo $(($(family_sum "$3" "cpusteer_$1_packets_total" "$LB") -
		$(family_sum "$2" "cpusteer_$1_packets_total" "$LB")))
}

# What breaks the format's rules in FILE: a family twice, a series out of
# its family's block. Nothing when all is well.
check_blocks() {	# FILE
	awk '/^# HELP / { next }
	     /^# TYPE / { if (seen[$3]++) print "second TYPE of " $3; family = $3; next }
	     { name = $1; sub(/\{.*/, "", name)
	       if (name != family) print "series " name " outside its family (" family ")" }' "$1"
}

# promtool's verdict on FILE; a missing promtool fails the test.
check_promtool() {	# FILE
	local out

	if [ ! -x "$PROMTOOL" ]; then
		t_fail "no promtool at $PROMTOOL (make setup fetches it)"
		return
	fi
	out=$("$PROMTOOL" check metrics <"$1" 2>&1) || t_fail "promtool check metrics on $1: $out"
}

# The exposition is whole: every family, the last line complete.
whole() {	# FILE
	[ "$(grep -c '^# TYPE ' "$1" 2>/dev/null)" = "$FAMILIES" ] && [ -z "$(tail -c 1 "$1")" ]
}

served() {	# URL
	[ "$(in_b curl -sg -m 5 -o /dev/null -w '%{http_code}' "$1")" = 200 ]
}

alive() {
	kill -0 "$EXP_PID" 2>/dev/null || t_fail "the exporter is no longer running: $(cat "$NETNS_TMP/exporter.err")"
}

# Starts the exporter in B on $PORT and waits until it serves.
start_exporter() {
	bg_b "$CPUSTEER" exporter 2>"$NETNS_TMP/exporter.err"
	EXP_PID=$BG_PID
	wait_until 10 served "http://127.0.0.1:$PORT/metrics" ||
		t_fail "nothing served on 127.0.0.1:$PORT in B within 10 s: $(cat "$NETNS_TMP/exporter.err")"
}

# The topology, cpusteer on vethB, and the labels of its series.
exporter_setup() {
	local t out

	for t in curl jq bpftool; do
		command -v $t >/dev/null || t_abort "needs $t"
	done
	netns_setup v4only || t_abort "setup: $NETNS_WHY"
	if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
		t_abort "cpusteer load failed: $out"
	fi
	COOKIE_B=$(in_b "$TOOLS/netns_cookie")
	LB="interface=\"$VB\",netns=\"$COOKIE_B\""
	FAMILIES=$(cs exporter --once | grep -c '^# TYPE ')
}
