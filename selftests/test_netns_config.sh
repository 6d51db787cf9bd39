#!/usr/bin/env bash
# Configuration files on a live interface: load --config takes the file's
# options, set --config applies a changed file to the running instance
# (a reload) and refuses what only load can change, and a bad or untrusted
# file changes nothing. (The systemd unit that runs them:
# test_netns_unit.sh.)
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         cpusteer load --config FILE
#                                         cpusteer set --config FILE
#                                         cpusteer unload
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib_netns.sh"

# What status --json says of vethB, as "key value" lines for KEYS.
status_of() {	# KEYS...
	cs status "$VB" --json | jq -r --args '.instances[0] as $i | $ARGS.positional[] |
		"\(.) \($i[.] | if type == "array" then map(.cpu) | join(",") else tostring end)"' "$@"
}

# A file of the given lines, root's and mode 0600, in the scratch folder.
write_config() {	# NAME LINES...
	local f=$NETNS_TMP/$1

	shift
	printf '%s\n' "$@" >"$f" && chmod 600 "$f"
}

loaded_state() {
	echo "prog $(xdp_prog_id)"
	[ -d "$PINS" ] && echo "pins $(ls "$PINS" | wc -l)" || echo "no pins"
	device_state_b
}

test_load_takes_the_file() {
	local got

	write_config main.conf "# the test's instance" "cpus = 0" "buckets = 64" "qsize = 512" \
		"hash = jhash" "key = $KEY1" "symmetric = yes" "gro = off"
	in_b ethtool -K "$VB" gro on
	cs load "$VB" --config "$NETNS_TMP/main.conf" >/dev/null ||
		{ t_fail "load --config failed"; return; }
	got=$(status_of cpus buckets qsize hash symmetric | tr '\n' ' ')
	t_eq "status after load --config" "cpus 0 buckets 64 qsize 512 hash jhash symmetric true " "$got"
	t_eq "GRO as the file says" "gro off" "$(device_state_b | grep '^gro ')"
}

test_reload_applies_the_changed_file() {
	local got before after

	"$TOOLS/steer_maps" table "$PINS" 64 >"$NETNS_TMP/table.before"
	write_config main.conf "cpus = 0" "buckets = 64" "qsize = 256" "hash = jhash" \
		"key = $KEY1" "symmetric = yes" "gro = off"
	cs set "$VB" --config "$NETNS_TMP/main.conf" >/dev/null ||
		{ t_fail "set --config failed"; return; }
	"$TOOLS/steer_maps" table "$PINS" 64 >"$NETNS_TMP/table.after"
	t_eq "qsize after the reload" "qsize 256" "$(status_of qsize)"
	cmp -s "$NETNS_TMP/table.before" "$NETNS_TMP/table.after" ||
		t_fail "a reload that changed only the queue size moved buckets"
	# Left out of the file: kept, not put back to load's defaults.
	write_config main.conf "cpus = 0,1" "qsize = 256"
	cs set "$VB" --config "$NETNS_TMP/main.conf" >/dev/null ||
		{ t_fail "set --config with fewer keys failed"; return; }
	got=$(status_of cpus buckets hash symmetric | tr '\n' ' ')
	t_eq "status after a reload giving only cpus and qsize" \
		"cpus 0,1 buckets 64 hash jhash symmetric true " "$got"
	before=$(loaded_state)
	write_config main.conf "cpus = 0" "xdp-mode = skb"
	got=$(cs set "$VB" --config "$NETNS_TMP/main.conf" 2>&1 >/dev/null)
	t_eq "set --config changing xdp-mode: status $? and" "status 1 and 1 line" \
		"status $? and $(wc -l <<<"$got") line"
	[[ $got == *"cannot change xdp-mode"* ]] || t_fail "the refusal does not say why: $got"
	after=$(loaded_state)
	t_eq "the refused reload changed nothing" "$before" "$after"
	t_eq "cpus after the refused reload" "cpus 0,1" "$(status_of cpus)"
	cs unload "$VB" >/dev/null || t_fail "unload failed"
}

# Each bad file: one line naming it, exit status 2, and the interface as
# it was, with no program and no pins.
test_bad_file_changes_nothing() {
	local before out rc f

	before=$(loaded_state)
	write_config typo.conf "cpus = 0" "qsize = 0x10"
	write_config unknown.conf "cpus = 0" "queue-size = 16"
	write_config open.conf "cpus = 0"
	chmod 666 "$NETNS_TMP/open.conf"
	for f in typo.conf:2: unknown.conf:2: open.conf missing.conf; do
		out=$(cs load "$VB" --config "$NETNS_TMP/${f%%:*}" 2>&1 >/dev/null)
		rc=$?
		t_eq "load --config ${f%%:*}: status and lines" "2 1" "$rc $(wc -l <<<"$out")"
		[[ $out == "cpusteer: "*"$NETNS_TMP/$f"* ]] || t_fail "the line does not name $f: $out"
		t_eq "after load --config ${f%%:*}" "$before" "$(loaded_state)"
	done
}

all_tests() {
	t_run netns_config_load_takes_the_file test_load_takes_the_file
	t_run netns_config_reload_applies_the_changed_file test_reload_applies_the_changed_file
	t_run netns_config_bad_file_changes_nothing test_bad_file_changes_nothing
}

t_plan_of all_tests
netns_setup v4only || t_abort "setup: $NETNS_WHY"
all_tests
t_exit
