#!/usr/bin/env bash
# Configuration files on a live interface: load --config takes the file's
# options, set --config applies a changed file to the running instance
# (a reload) and refuses what only load can change, and a bad or untrusted
# file changes nothing. Every flag of load and set: the last form given
# wins, the command line wins over the file, and set keeps what it is not
# given. A value refused after parsing names its file and line. The hash
# key from a key file or standard input. (The systemd unit that runs
# these commands: test_netns_unit.sh.)
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         cpusteer load --config FILE
#                                         cpusteer set --config FILE
#                                         cpusteer unload
#
# Not in kernel runs: files, flags and which of them wins, read in user space the same on every kernel; the device settings they reach are test_device's and test_netns_unload's there (7 s on the host, 5 min under emulation)
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
		"hash = siphash13" "key = $KEY1" "symmetric = yes" "gro = off"
	in_b ethtool -K "$VB" gro on
	cs load "$VB" --config "$NETNS_TMP/main.conf" >/dev/null ||
		{ t_fail "load --config failed"; return; }
	got=$(status_of cpus buckets qsize hash symmetric | tr '\n' ' ')
	t_eq "status after load --config" "cpus 0 buckets 64 qsize 512 hash siphash13 symmetric true " "$got"
	t_eq "GRO as the file says" "gro off" "$(device_state_b | grep '^gro ')"
}

test_reload_applies_the_changed_file() {
	local got before after

	"$TOOLS/steer_maps" table "$PINS" 64 >"$NETNS_TMP/table.before"
	write_config main.conf "cpus = 0" "buckets = 64" "qsize = 256" "hash = siphash13" \
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
		"cpus 0,1 buckets 64 hash siphash13 symmetric true " "$got"
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

# The flags of COMMAND's --help as pairs "FORM no-FORM" of a flag and the
# form that undoes it, and every flag without one as "FORM -".
flag_pairs() {	# COMMAND
	local flags f

	flags=$("$CPUSTEER" "$1" --help | sed -n -E 's/^  --([a-z-]+)(  .*)?$/\1/p')
	for f in $flags; do
		if grep -qx "no-$f" <<<"$flags"; then
			echo "$f no-$f"
		elif [[ $f != no-* ]] || ! grep -qx "${f#no-}" <<<"$flags"; then
			echo "$f -"
		fi
	done
}

# Whether FORM of a flag is in effect on vethB, as status --json says:
# its own key, or the negation of the other form's ("no-touch" is shown
# as no_touch, so "touch" is its negation).
form_in_effect() {	# FORM
	local key=${1//-/_}

	cs status "$VB" --json | jq -r --arg k "$key" '.instances[0] as $i |
		if $i | has($k) then $i[$k]
		elif ($k | startswith("no_")) and ($i | has($k[3:])) then ($i[$k[3:]] | not)
		elif $i | has("no_" + $k) then ($i["no_" + $k] | not)
		else "not shown" end'
}

# Every flag of load (from its --help, so a new one is walked too): the
# last form given wins, and the command line wins over the file.
test_load_flags_last_word_wins() {
	local a b args last line

	while read -r a b; do
		[ "$b" != - ] || { t_fail "load --$a has no form that undoes it"; continue; }
		for line in "-|--$a --$b|$b" "-|--$b --$a|$a" "$a = yes|--$b|$b" \
			"$a = no|--$a|$a" "$b = yes|--$a|$a"; do
			IFS='|' read -r file args last <<<"$line"
			# shellcheck disable=SC2086 # the case's words
			if [ "$file" = - ]; then
				set -- $args
			else
				write_config flag.conf "$file"
				set -- $args --config "$NETNS_TMP/flag.conf"
			fi
			cs load "$VB" --cpus 0 "$@" >/dev/null 2>&1 ||
				{ t_fail "load $* (file: $file) failed"; continue; }
			t_eq "load $* (file: $file): --$last in effect" true "$(form_in_effect "$last")"
			cs unload "$VB" >/dev/null || t_fail "unload failed"
		done
	done < <(flag_pairs load)
}

# Every flag of set: the same, and a flag given neither way keeps the
# instance's value, whichever it is.
test_set_flags_last_word_wins() {
	local a b

	while read -r a b; do
		[ "$b" != - ] || { t_fail "set --$a has no form that undoes it"; continue; }
		cs load "$VB" --cpus 0 "--$a" >/dev/null || { t_fail "load --$a failed"; continue; }
		set_and_expect "$a" ""
		set_and_expect "$b" "--$a --$b"
		set_and_expect "$b" ""
		set_and_expect "$a" "--$b --$a"
		write_config flag.conf "$a = yes"
		set_and_expect "$b" "--config $NETNS_TMP/flag.conf --$b"
		write_config flag.conf "$a = no"
		set_and_expect "$a" "--$a --config $NETNS_TMP/flag.conf"
		write_config flag.conf "$b = yes"
		set_and_expect "$a" "--config $NETNS_TMP/flag.conf --$a"
		cs unload "$VB" >/dev/null || t_fail "unload failed"
	done < <(flag_pairs set)
}

set_and_expect() {	# FORM ARGS
	# shellcheck disable=SC2086 # the case's words
	cs set "$VB" $2 >/dev/null || { t_fail "set $2 failed"; return; }
	t_eq "set ${2:-with no option}: --$1 in effect" true "$(form_in_effect "$1")"
}

# A value that parses but is refused once every option is in: one line
# that names the file and line, and nothing changed; for load, then set.
test_values_refused_after_parsing_name_the_line() {
	local cmd f files out rc before

	write_config weights.conf "# all zero" "weights = 0,0"
	write_config cpus.conf "cpus = 65535"
	# What only load sets, given to set: checked against the instance,
	# which counts 512 buckets and is in native mode.
	write_config mode.conf "cpus = 0-1" "xdp-mode = skb"
	write_config counted.conf "bucket-stats = no"
	write_config grown.conf "# more than counted" "buckets = 1024"
	for cmd in load set; do
		files="weights.conf:2: cpus.conf:1:"
		if [ $cmd = set ]; then
			cs load "$VB" --cpus 0-1 --buckets 512 --bucket-stats >/dev/null ||
				{ t_fail "load failed"; return; }
			files="$files mode.conf:2: counted.conf:1: grown.conf:2:"
		fi
		before=$(loaded_state; status_of cpus 2>/dev/null)
		for f in $files; do
			out=$(cs $cmd "$VB" --config "$NETNS_TMP/${f%%:*}" 2>&1 >/dev/null)
			rc=$?
			t_ne "$cmd --config ${f%%:*}: status" 0 "$rc"
			t_eq "$cmd --config ${f%%:*}: lines" 1 "$(wc -l <<<"$out")"
			[[ $out == "cpusteer: $NETNS_TMP/$f "* ]] || t_fail "the line does not start with $f: $out"
			t_eq "after $cmd --config ${f%%:*}" "$before" "$(loaded_state; status_of cpus 2>/dev/null)"
		done
	done
	cs unload "$VB" >/dev/null || t_fail "unload failed"
}

# The hash key the instance's program uses, as 32 hex digits: the first
# 16 bytes of the configuration in force.
live_key() {
	local slot

	slot=$(bpftool -j map lookup pinned "$PINS/config_slot" key 0 0 0 0 | jq -r '.value[0]')
	bpftool -j map lookup pinned "$PINS/config_map" key "$slot" 0 0 0 |
		jq -r '.value[0:16] | map(ltrimstr("0x")) | join("")'
}

# --key-file FILE and --key-file - (standard input) give the key, which
# then never stands in the process's command line; a file others could
# write is refused; --key still works.
test_key_file() {
	local out before

	command -v bpftool >/dev/null || { t_skip "needs bpftool to read the live key"; return; }
	write_config k1.key "$KEY1"
	cs load "$VB" --cpus 0-1 --key-file "$NETNS_TMP/k1.key" >/dev/null ||
		{ t_fail "load --key-file failed"; return; }
	t_eq "the key after load --key-file" "$KEY1" "$(live_key)"
	cs set "$VB" --key-file - <<<"$KEY2" >/dev/null || t_fail "set --key-file - failed"
	t_eq "the key after set --key-file -" "$KEY2" "$(live_key)"
	write_config k1.conf "key-file = $NETNS_TMP/k1.key"
	cs set "$VB" --config "$NETNS_TMP/k1.conf" >/dev/null || t_fail "set --config with a key-file failed"
	t_eq "the key after set --config (key-file)" "$KEY1" "$(live_key)"
	chmod 666 "$NETNS_TMP/k1.key"
	before=$(live_key)
	out=$(cs set "$VB" --key-file "$NETNS_TMP/k1.key" 2>&1 >/dev/null)
	t_eq "set --key-file of a file anyone may write: status $? and" "status 2 and 1 line" \
		"status $? and $(wc -l <<<"$out") line"
	[[ $out == *"writable by no one else"* ]] || t_fail "the refusal does not say why: $out"
	t_eq "the key after the refusal" "$before" "$(live_key)"
	cs set "$VB" --key "$KEY2" >/dev/null || t_fail "set --key failed"
	t_eq "the key after set --key" "$KEY2" "$(live_key)"
	cs unload "$VB" >/dev/null || t_fail "unload failed"
}

all_tests() {
	t_run netns_config_load_takes_the_file test_load_takes_the_file
	t_run netns_config_reload_applies_the_changed_file test_reload_applies_the_changed_file
	t_run netns_config_bad_file_changes_nothing test_bad_file_changes_nothing
	t_run netns_config_load_flags_last_word_wins test_load_flags_last_word_wins
	t_run netns_config_set_flags_last_word_wins test_set_flags_last_word_wins
	t_run netns_config_values_refused_after_parsing_name_the_line \
		test_values_refused_after_parsing_name_the_line
	t_run netns_config_key_file test_key_file
}

t_plan_of all_tests
netns_setup v4only || t_abort "setup: $NETNS_WHY"
all_tests
t_exit
