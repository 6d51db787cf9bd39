#!/usr/bin/env bash
# Prefix rules (`cpusteer rule`, `load --rules`, `classify --rules`): a
# rule sends every flow whose source or destination address is in its
# prefix to its CPU, ahead of the bucket table. What an operator relies
# on, each checked here:
#  - the list reads back as a rules file: what `rule IFACE` prints, fed to
#    `rule IFACE --replace`, gives the same rules, so a saved list restores
#    them; add, replace, remove and flush change what they say and nothing
#    else;
#  - a refused change (bad prefix, bad CPU, a CPU the instance lacks, a
#    rule given twice, an untrusted file, two changes at once) leaves the
#    rules and the attached program as they were, with one line saying why
#    and exit 2 for bad input, 1 for what the instance refuses;
#  - `set --cpus` cannot take away a CPU a rule still sends flows to;
#  - live traffic follows the rules, changed while the program stays
#    attached: every flow to B's address reaches B's stack on the rule's
#    CPU (SO_INCOMING_CPU), a longer source prefix beats a shorter
#    destination one, a rule with two CPUs spreads its flows as classify
#    predicts, and after a flush the bucket table places them again;
#  - 100000 rules go in at once and list back whole (the time is printed
#    for a reader, not checked: machines are noisy);
#  - classify names the rule that chose each frame's CPU, and follows the
#    precedence: the longest prefix, and the destination's of a source and
#    a destination rule of the same length.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#   (no IPv6: nothing else leaves A)      cpusteer load --cpus 0-1 --rules FILE
#   udp_flows send: 64 flows              udp_flows recv: one connected socket
#   sport 30000+i -> dport 20000+i        per flow, reads SO_INCOMING_CPU
#
# Rules files live in the scratch folder, which only root can write: a
# rules file is refused from a folder where someone else could swap it.
set -u
# shellcheck source=selftests/lib_netns.sh disable=SC1091 # followed with -x
. "$(dirname "$0")/lib_netns.sh"

FLOWS=64
PER_FLOW=4
SCALE=100000
LIST=rules_listed_added_replaced_removed_flushed
REFUSED=rules_refusals_change_nothing
SET=rules_set_cpus_refused_while_a_rule_names_the_cpu
LIVE=rules_live_flows_arrive_on_the_rule_cpu
MANY=rules_100000_replaced_listed_flushed
CLASSIFY=rules_classify_names_the_rule_and_its_precedence

t_plan $LIST $REFUSED $SET $LIVE $MANY $CLASSIFY
netns_require 2 "rules send flows to CPU 1 and to CPU 0"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
T=$NETNS_TMP

# The rules the instance starts with: out of order, with a comment, a
# blank line and a tab, as a hand-written file has them.
cat >"$T/start" <<'EOF'
# the rules this instance starts with
dst 10.1.0.0/16 1
src 2001:db8::/32 0-1

dst 10.0.0.0/8	0
src 10.2.0.0/16 1
dst fd00::/8 0
dst 2001:db8:1::/48 1
src 10.3.3.0/24 0
EOF
# As `rule` lists them: IPv4 first, src before dst, shorter prefix first.
START_LISTED='src 10.2.0.0/16 1
src 10.3.3.0/24 0
dst 10.0.0.0/8 0
dst 10.1.0.0/16 1
src 2001:db8::/32 0-1
dst fd00::/8 0
dst 2001:db8:1::/48 1'

rules() { cs rule "$VB"; }
# shellcheck disable=SC2317 # run by t_says
rules_piped_back() { rules | cs rule "$VB" --replace -; }

if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --rules "$T/start" 2>&1); then
	t_abort "cpusteer load --rules failed: $out"
fi
prog=$(xdp_prog_id "$VB")
[ -n "$prog" ] || t_abort "no XDP program on $VB after load"

# COMMAND's standard output must be the single line WANT.
t_says() {	# WHAT WANT COMMAND...
	local what=$1 want=$2 out

	shift 2
	out=$("$@" 2>&1) || t_fail "$what: exit status $?: $out"
	t_eq "$what" "$want" "$out"
}

t_begin $LIST
t_eq "rules after load --rules" "$START_LISTED" "$(rules)"
json=$(cs rule "$VB" --json)
t_eq "--json: interface" "$VB" "$(jq -r .interface <<<"$json")"
t_eq "--json: the rules, in the list's order" \
	"$(awk '{ print $1, $2 }' <<<"$START_LISTED")" \
	"$(jq -r '.rules[] | "\(.direction) \(.prefix)"' <<<"$json")"
t_eq "--json: a rule with two CPUs" '{"direction":"src","prefix":"2001:db8::/32","cpus":[0,1]}' \
	"$(jq -c '.rules[4]' <<<"$json")"

t_says "--add of a new rule" "cpusteer: $VB: rule dst 10.4.0.0/16 1 added" \
	cs rule "$VB" --add "dst 10.4.0.0/16 1"
t_eq "rules after --add" "$(sed '/^dst 10.1.0.0\/16/a dst 10.4.0.0/16 1' <<<"$START_LISTED")" "$(rules)"
t_says "--add to a prefix that has a rule" \
	"cpusteer: $VB: rule dst 10.4.0.0/16 0 (was dst 10.4.0.0/16 1)" \
	cs rule "$VB" --add "dst 10.4.0.0/16 0"
t_eq "rules after the second --add" "$(sed '/^dst 10.1.0.0\/16/a dst 10.4.0.0/16 0' <<<"$START_LISTED")" \
	"$(rules)"
# The source rule of the same prefix is another rule.
t_says "--add of a src rule for a dst rule's prefix" "cpusteer: $VB: rule src 10.4.0.0/16 1 added" \
	cs rule "$VB" --add "src 10.4.0.0/16 1"
t_says "--del of the src rule" "cpusteer: $VB: rule src 10.4.0.0/16 removed" \
	cs rule "$VB" --del "src 10.4.0.0/16"
t_says "--del" "cpusteer: $VB: rule dst 10.4.0.0/16 removed" cs rule "$VB" --del "dst 10.4.0.0/16"
t_eq "rules after --del" "$START_LISTED" "$(rules)"

# The list is a rules file: saved and given back, it is the same list.
rules >"$T/saved"
t_says "--replace with the saved list" "cpusteer: $VB: 7 rules in force" \
	cs rule "$VB" --replace "$T/saved"
t_eq "rules after --replace with the saved list" "$START_LISTED" "$(rules)"
t_says "--replace - with the list piped in" "cpusteer: $VB: 7 rules in force" rules_piped_back
t_eq "rules after rule | rule --replace -" "$START_LISTED" "$(rules)"

printf 'dst 192.0.2.0/24 1\nsrc 2001:db8:40::/48 0\n' >"$T/other"
t_says "--replace with other rules" "cpusteer: $VB: 2 rules in force" cs rule "$VB" --replace "$T/other"
t_eq "rules after --replace: the file's only" "dst 192.0.2.0/24 1
src 2001:db8:40::/48 0" "$(rules)"
: >"$T/empty"
t_says "--replace with an empty file" "cpusteer: $VB: 0 rules in force" cs rule "$VB" --replace "$T/empty"
t_eq "rules after --replace with an empty file" "" "$(rules)"
cs rule "$VB" --replace "$T/start" >/dev/null || t_fail "--replace with the starting rules failed"
t_eq "rules after --replace with the starting file" "$START_LISTED" "$(rules)"
t_says "--flush" "cpusteer: $VB: 0 rules in force" cs rule "$VB" --flush
t_eq "rules after --flush" "" "$(rules)"
t_eq "--json after --flush" "[]" "$(cs rule "$VB" --json | jq -c .rules)"
t_eq "XDP program on vethB (never detached)" "$prog" "$(xdp_prog_id "$VB")"
t_end

# Runs COMMAND..., which must be refused with exit status RC and exactly
# one line on stderr matching the glob PATTERN, and leave the rules and
# the attached program as they were.
rule_refused() {	# WHAT RC PATTERN COMMAND...
	local what=$1 rc=$2 pattern=$3 before after got err

	shift 3
	before="$(rules)
prog $(xdp_prog_id "$VB")"
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	after="$(rules)
prog $(xdp_prog_id "$VB")"
	err=$(cat "$T/err")
	t_eq "$what: exit status" "$rc" "$got"
	t_eq "$what: lines on stderr" 1 "$(wc -l <"$T/err")"
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $err == $pattern ]] || t_fail "$what: stderr does not say '$pattern': $err"
	t_eq "$what: lines on stdout" 0 "$(wc -l <"$T/out")"
	[ "$before" = "$after" ] || t_fail "$what: the rules or the program changed:" \
		"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -5 | tr '\n' ';')"
}

# shellcheck disable=SC2317 # run by rule_refused
replace_from_stdin() {	# FILE
	cs rule "$VB" --replace - <"$1"
}

t_begin $REFUSED
cs rule "$VB" --replace "$T/start" >/dev/null || t_fail "--replace with the starting rules failed"
# Bad input: exit 2, before the instance is touched.
rule_refused "host bits set" 2 "cpusteer: *10.1.0.1/16*bits set past its length*" \
	cs rule "$VB" --add "dst 10.1.0.1/16 1"
rule_refused "host bits set (IPv6)" 2 "cpusteer: *2001:db8::1/32*bits set*" \
	cs rule "$VB" --add "src 2001:db8::1/32 1"
rule_refused "prefix length 33" 2 "cpusteer: *length must be 0 to 32*" \
	cs rule "$VB" --add "dst 10.1.0.0/33 1"
rule_refused "no prefix length" 2 "cpusteer: *no length*" cs rule "$VB" --add "dst 10.1.0.0 1"
rule_refused "no address" 2 "cpusteer: *no IPv4 or IPv6 address*" \
	cs rule "$VB" --add "dst 10.1.0.300/32 1"
rule_refused "no direction" 2 "cpusteer: *'sideways' is no direction*" \
	cs rule "$VB" --add "sideways 10.1.0.0/16 1"
rule_refused "--add without CPUs" 2 "cpusteer: *src|dst PREFIX CPUS*" \
	cs rule "$VB" --add "dst 10.1.0.0/16"
rule_refused "--del with CPUs" 2 "cpusteer: *src|dst PREFIX*" cs rule "$VB" --del "dst 10.1.0.0/16 1"
rule_refused "bad CPU list '0-'" 2 "cpusteer: *CPU list '0-'*" cs rule "$VB" --add "dst 10.1.0.0/16 0-"
rule_refused "bad CPU list 'x'" 2 "cpusteer: *CPU list 'x'*" cs rule "$VB" --add "dst 10.1.0.0/16 x"
rule_refused "--add and --del" 2 "cpusteer: *one change each*" \
	cs rule "$VB" --add "dst 10.5.0.0/16 1" --del "dst 10.1.0.0/16"
rule_refused "--flush and --replace" 2 "cpusteer: *one change each*" \
	cs rule "$VB" --flush --replace "$T/other"
rule_refused "--json with --flush" 2 "cpusteer: *--json*" cs rule "$VB" --flush --json
printf 'dst 10.1.0.0/16 1\nsrc 10.2.0.0/16 1\n# again, with another CPU\ndst 10.1.0.0/16 0\n' >"$T/dup"
rule_refused "a rule given twice in a file" 2 \
	"cpusteer: $T/dup:4: rule dst 10.1.0.0/16 is given again (first on line 1)" \
	cs rule "$VB" --replace "$T/dup"
rule_refused "a rule given twice on standard input" 2 \
	"cpusteer: standard input:4: rule dst 10.1.0.0/16 is given again (first on line 1)" \
	replace_from_stdin "$T/dup"
printf 'dst 10.7.0.0/16 1\ndst 10.8.0.0/16 one\n' >"$T/badline"
rule_refused "a bad line in a file" 2 "cpusteer: *CPU list 'one'*" cs rule "$VB" --replace "$T/badline"
printf 'dst 10.7.0.0/16 1\ndst 10.8.0.1/16 1\n' >"$T/badprefix"
rule_refused "host bits set in a file" 2 "cpusteer: $T/badprefix:2: *bits set*" \
	cs rule "$VB" --replace "$T/badprefix"
rule_refused "no such file" 2 "cpusteer: *$T/nosuch*" cs rule "$VB" --replace "$T/nosuch"
# Files someone else could have written or swapped.
cp "$T/other" "$T/groupwritable"
chmod 664 "$T/groupwritable"
rule_refused "a group-writable file" 2 "cpusteer: refusing $T/groupwritable: *writable by no one else*" \
	cs rule "$VB" --replace "$T/groupwritable"
mkdir -m 777 "$T/open"
cp "$T/other" "$T/open/rules"
chmod 644 "$T/open/rules"
rule_refused "a file in a folder anyone can write" 2 "cpusteer: refusing $T/open/rules: its folder*" \
	cs rule "$VB" --replace "$T/open/rules"
ln -s "$T/other" "$T/link"
rule_refused "a symbolic link" 2 "cpusteer: refusing $T/link: a symbolic link*" \
	cs rule "$VB" --replace "$T/link"
# The instance refuses: exit 1.
rule_refused "a CPU the instance does not have" 1 "cpusteer: rule dst 10.1.0.0/16 5 names CPU 5, *" \
	cs rule "$VB" --add "dst 10.1.0.0/16 5"
rule_refused "a CPU list with one the instance does not have" 1 "cpusteer: *names CPU 2,*" \
	cs rule "$VB" --add "dst 10.9.0.0/16 0-2"
printf 'dst 10.7.0.0/16 1\nsrc 10.8.0.0/16 0,3\n' >"$T/cpu3"
rule_refused "a file with a CPU the instance does not have" 1 "cpusteer: rule src 10.8.0.0/16 0,3 names CPU 3,*" \
	cs rule "$VB" --replace "$T/cpu3"
rule_refused "--del of a rule that is not there" 1 "cpusteer: cannot remove rule dst 10.9.0.0/16 *no such rule*" \
	cs rule "$VB" --del "dst 10.9.0.0/16"
rule_refused "--del of the src rule of a dst rule's prefix" 1 "cpusteer: *src 10.1.0.0/16*no such rule*" \
	cs rule "$VB" --del "src 10.1.0.0/16"
t_eq "rules after the refusals" "$START_LISTED" "$(rules)"
# load --rules refused leaves no instance behind, on a second device of
# B: bad input (a bad file, exit 2) or what the load refuses (exit 1).
ip -n "$NSB" link add rl0 type veth peer name rl1 && ip -n "$NSB" link set rl0 up &&
	ip -n "$NSB" link set rl1 up || t_fail "cannot make a second device in B"
load_refused() {	# WHAT RC PATTERN ARGS...
	local what=$1 rc=$2 pattern=$3 got

	shift 3
	cs load rl0 --cpus 0-1 "$@" >"$T/out" 2>"$T/err"
	got=$?
	t_eq "load, $what: exit status" "$rc" "$got"
	t_eq "load, $what: lines on stderr" 1 "$(wc -l <"$T/err")"
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $(cat "$T/err") == $pattern ]] || t_fail "load, $what: stderr does not say '$pattern': $(cat "$T/err")"
	t_eq "load, $what: XDP program on rl0" "" "$(xdp_prog_id rl0)"
	[ -e "$(dirname "$PINS")/rl0" ] && t_fail "load, $what: pins of rl0 left behind"
}
load_refused "a rule given twice" 2 "cpusteer: $T/dup:4: rule dst 10.1.0.0/16 is given again*" 	--rules "$T/dup"
load_refused "a CPU not among --cpus" 1 "cpusteer: rule src 10.8.0.0/16 0,3 names CPU 3, which is not among --cpus 0-1" 	--rules "$T/cpu3"
load_refused "rules with the no-touch floor" 1 "cpusteer: --rules cannot go with the no-touch floor*" 	--rules "$T/start" --no-touch
ip -n "$NSB" link del rl0
t_end

# What set must leave alone when it is refused: the rules, the CPUs, the
# bucket table, the program.
instance_state() {
	rules
	cs status "$VB" --json | jq -c '[.instances[0].cpus[] | .cpu]'
	"$TOOLS/steer_maps" table "$PINS" 512 | md5sum
	xdp_prog_id "$VB"
}

t_begin $SET
cs rule "$VB" --replace "$T/start" >/dev/null || t_fail "--replace with the starting rules failed"
before=$(instance_state)
# The first rule in list order that names CPU 1.
rule_refused "set --cpus 0 while rules name CPU 1" 1 \
	"cpusteer: cannot set $VB: CPU 1 is named by rule src 10.2.0.0/16 1;*" cs set "$VB" --cpus 0
t_eq "everything after the refused set" "$before" "$(instance_state)"
# Each rule that names CPU 1 keeps it from going, the one with a CPU
# list too.
printf 'dst 10.0.0.0/8 0\nsrc 2001:db8::/32 0-1\n' >"$T/list01"
cs rule "$VB" --replace "$T/list01" >/dev/null || t_fail "--replace with a rule for CPUs 0-1 failed"
before=$(instance_state)
rule_refused "set --cpus 0 while a rule names CPUs 0-1" 1 \
	"cpusteer: cannot set $VB: CPU 1 is named by rule src 2001:db8::/32 0-1;*" cs set "$VB" --cpus 0
t_eq "everything after the second refused set" "$before" "$(instance_state)"
t_says "the rule moved to CPU 0" "cpusteer: $VB: rule src 2001:db8::/32 0 (was src 2001:db8::/32 0-1)" \
	cs rule "$VB" --add "src 2001:db8::/32 0"
out=$(cs set "$VB" --cpus 0 2>&1) || t_fail "set --cpus 0 with no rule on CPU 1 failed: $out"
t_eq "CPUs after set --cpus 0" "[0]" "$(cs status "$VB" --json | jq -c '[.instances[0].cpus[] | .cpu]')"
t_eq "rules after set --cpus 0 (set leaves them)" "dst 10.0.0.0/8 0
src 2001:db8::/32 0" "$(rules)"
# A set starts from the recorded configuration, which must hold the copy
# and kinds the rule changes moved it to: one --replace (the other copy)
# and a set of something else keep the rules in force.
printf 'src 10.7.0.0/16 0\n' >"$T/one7"
cs rule "$VB" --replace "$T/one7" >/dev/null || t_fail "--replace with one rule failed"
out=$(cs set "$VB" --buckets 1024 2>&1) || t_fail "set --buckets 1024 failed: $out"
t_eq "rules after a --replace and a set --buckets" "src 10.7.0.0/16 0" "$(rules)"
out=$(cs set "$VB" --buckets 512 2>&1) || t_fail "set --buckets 512 failed: $out"
# And now a rule cannot name CPU 1, which the instance no longer has.
rule_refused "--add naming CPU 1 after set --cpus 0" 1 "cpusteer: *names CPU 1, which is not one of $VB's CPUs (0)*" \
	cs rule "$VB" --add "dst 10.1.0.0/16 1"
out=$(cs set "$VB" --cpus 0-1 2>&1) || t_fail "set --cpus 0-1 failed: $out"
t_says "--add naming CPU 1 after set --cpus 0-1" "cpusteer: $VB: rule dst 10.1.0.0/16 1 added" \
	cs rule "$VB" --add "dst 10.1.0.0/16 1"
# A reload (set --config) that takes CPU 1 away is refused while a rule
# in force names it, even when the file's own rules do not: those come
# after the set, and no frame may meet a rule whose CPU has no cpumap
# entry meanwhile. One that keeps the CPUs replaces the rules.
printf 'dst 10.3.0.0/16 0\n' >"$T/reload.rules"
printf 'cpus = 0\nrules = %s\n' "$T/reload.rules" >"$T/reload0.conf"
printf 'cpus = 0-1\nrules = %s\n' "$T/reload.rules" >"$T/reload01.conf"
chmod 644 "$T/reload.rules" "$T/reload0.conf" "$T/reload01.conf"
before=$(instance_state)
rule_refused "a reload that takes away a CPU a rule in force names" 1 \
	"cpusteer: $T/reload0.conf:1: cannot set $VB: CPU 1 is named by rule dst 10.1.0.0/16 1;*" \
	cs set "$VB" --config "$T/reload0.conf"
t_eq "everything after the refused reload" "$before" "$(instance_state)"
out=$(cs set "$VB" --config "$T/reload01.conf" 2>&1) || t_fail "a reload keeping the CPUs failed: $out"
t_eq "rules after the reload" "dst 10.3.0.0/16 0" "$(rules)"
t_eq "XDP program on vethB (never detached)" "$prog" "$(xdp_prog_id "$VB")"
t_end

# Sends PER_FLOW datagrams on each of the FLOWS flows A -> B and writes
# the CPU each flow reached to GOT ("sport dport cpu" lines); returns 1
# when the exchange failed (already reported).
send_flows() {	# NAME GOT
	local rx=$T/$1.recv

	exchange_flows "$rx" "$FLOWS_V4" "$FLOWS" "$PER_FLOW" || return 1
	received_flows "$rx" "$2"
	t_eq "$1: flows received" "$FLOWS" "$(wc -l <"$2")"
}

# Every flow of GOT reached CPU.
t_all_on() {	# NAME CPU GOT
	t_eq "$1: the CPUs the flows landed on" "$2" "$(awk '{ print $3 }' "$3" | sort -u | tr '\n' ' ' | sed 's/ $//')"
}

t_begin $LIVE
out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
# Without rules the bucket table spreads these flows over both CPUs:
# flows that all land on one show the rule at work.
predict_bare_flows "$T/bare" "$FLOWS_V4" "$FLOWS"
t_eq "CPUs the bucket table gives the flows" "0 1 " "$(awk '{ print $3 }' "$T/bare" | sort -u | tr '\n' ' ')"
printf 'dst %s/32 1\ndst 10.9.0.0/16 0\nsrc 192.0.2.0/24 0\n' "$IPB" >"$T/live"
if out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --rules "$T/live" 2>&1); then
	prog=$(xdp_prog_id "$VB")
	read_counters "$T/c0"
	if send_flows dst_cpu1 "$T/got1"; then
		t_all_on "load --rules with dst $IPB/32 1" 1 "$T/got1"
	fi
	t_says "--add moving B's rule to CPU 0" "cpusteer: $VB: rule dst $IPB/32 0 (was dst $IPB/32 1)" \
		cs rule "$VB" --add "dst $IPB/32 0"
	if send_flows dst_cpu0 "$T/got0"; then
		t_all_on "rule moved to dst $IPB/32 0" 0 "$T/got0"
	fi
	# A's address as a /32 source beats B's /24 as a destination.
	printf 'src %s/32 1\ndst 10.200.0.0/24 0\n' "$IPA" >"$T/live_src"
	cs rule "$VB" --replace "$T/live_src" >/dev/null || t_fail "--replace with a src rule failed"
	if send_flows src_cpu1 "$T/gotsrc"; then
		t_all_on "src $IPA/32 1 over dst 10.200.0.0/24 0" 1 "$T/gotsrc"
	fi
	# A rule with two CPUs picks one by the flow's hash: each flow lands
	# where classify, given the same rules, says.
	printf 'dst %s/32 0-1\n' "$IPB" >"$T/live_two"
	cs rule "$VB" --replace "$T/live_two" >/dev/null || t_fail "--replace with a rule for CPUs 0-1 failed"
	if send_flows dst_cpus01 "$T/got01"; then
		# shellcheck disable=SC2086
		udp_flows pcap $FLOWS_V4 --flows "$FLOWS" --out "$T/live.pcap"
		"$CPUSTEER" classify "$T/live.pcap" --cpus 0-1 --key "$KEY1" --rules "$T/live_two" --json |
			jq -r '.packets[] | "\(.flow.sport) \(.flow.dport) \(.cpu) \(.rule)"' >"$T/want01.rules"
		t_eq "classify: the rule of every flow" "dst $IPB/32" \
			"$(awk '{ print $4, $5 }' "$T/want01.rules" | sort -u)"
		awk '{ print $1, $2, $3 }' "$T/want01.rules" | sort >"$T/want01"
		check_flows_placed "$T/want01" "$T/got01" "$FLOWS"
	fi
	# Flushed, the bucket table places the flows again.
	cs rule "$VB" --flush >/dev/null || t_fail "--flush failed"
	if send_flows flushed "$T/gotbare"; then
		check_flows_placed "$T/bare" "$T/gotbare" "$FLOWS"
	fi
	read_counters "$T/c1"
	t_counters_reconcile "$T/c1"
	t_ge "frames the program saw" $((5 * FLOWS * PER_FLOW)) \
		$(($(field "$T/c1" rx_packets) - $(field "$T/c0" rx_packets)))
	t_eq "XDP program on vethB (never detached by rule changes)" "$prog" "$(xdp_prog_id "$VB")"
else
	t_fail "cpusteer load --rules failed: $out"
fi
t_end

# Seconds since an earlier `date +%s%N`, to the millisecond.
seconds_since() {	# START-NS
	local ns=$(($(date +%s%N) - $1))

	printf '%d.%03d' $((ns / 1000000000)) $((ns / 1000000 % 1000))
}

t_begin $MANY
# /32s from 10.199.0.0 on, in the order `rule` lists them; 10.200.0.2 (B)
# is one of them, so the flows show that the big trie is in force.
awk -v n=$SCALE 'BEGIN {
	for (i = 0; i < n; i++) {
		a = 10 * 16777216 + 199 * 65536 + i
		printf "dst %d.%d.%d.%d/32 %d\n", int(a / 16777216), int(a / 65536) % 256,
			int(a / 256) % 256, a % 256, i % 2
	} }' >"$T/many"
b_cpu=$(awk -v p="$IPB/32" '$2 == p { print $3 }' "$T/many")
t_eq "rules generated" $SCALE "$(sort -u "$T/many" | wc -l)"
start=$(date +%s%N)
out=$(cs rule "$VB" --replace "$T/many" 2>&1) || t_fail "--replace with $SCALE rules failed: $out"
echo "# rule --replace with $SCALE rules took $(seconds_since "$start") s"
t_eq "--replace with $SCALE rules says" "cpusteer: $VB: $SCALE rules in force" "$out"
start=$(date +%s%N)
rules >"$T/many.listed"
echo "# listing $SCALE rules took $(seconds_since "$start") s"
t_eq "rules listed" $SCALE "$(wc -l <"$T/many.listed")"
cmp -s "$T/many" "$T/many.listed" || t_fail "the list is not the file: $(diff "$T/many" "$T/many.listed" | head -3 | tr '\n' ';')"
if send_flows many "$T/gotmany"; then
	t_all_on "dst $IPB/32 $b_cpu among $SCALE rules" "$b_cpu" "$T/gotmany"
fi
start=$(date +%s%N)
out=$(cs rule "$VB" --flush 2>&1) || t_fail "--flush failed: $out"
echo "# flushing $SCALE rules took $(seconds_since "$start") s"
t_eq "rules after --flush" 0 "$(rules | wc -l)"
# The same file at load, and unload removes it all.
out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
start=$(date +%s%N)
if out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" --rules "$T/many" 2>&1); then
	echo "# load --rules with $SCALE rules took $(seconds_since "$start") s"
	t_eq "rules listed after load --rules" $SCALE "$(rules | wc -l)"
else
	t_fail "load --rules with $SCALE rules failed: $out"
fi
out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
t_eq "pins left after unload" "" "$(find "$PINS" 2>/dev/null)"
t_eq "XDP program after unload" "" "$(xdp_prog_id "$VB")"
t_end

t_begin $CLASSIFY
cat >"$T/classify.rules" <<'EOF'
dst 10.0.0.0/8 1
src 192.0.2.0/24 0
dst 198.51.100.0/24 1
src 203.0.113.0/25 0
dst 2001:db8::/32 1
src 2001:db8:1::/48 0
src fd00:1::/64 0
dst fd00:2::/64 1
EOF
# source destination: the rule that chooses, and its CPU ("-": none,
# the bucket table chooses).
cat >"$T/classify.cases" <<'EOF'
192.168.1.1 10.1.2.3 dst 10.0.0.0/8 1
192.0.2.7 172.16.0.1 src 192.0.2.0/24 0
192.0.2.7 198.51.100.9 dst 198.51.100.0/24 1
203.0.113.5 10.9.9.9 src 203.0.113.0/25 0
203.0.113.200 10.9.9.9 dst 10.0.0.0/8 1
2001:db8:1::5 2001:db8:2::1 src 2001:db8:1::/48 0
2001:db8:2::5 2001:db8:3::1 dst 2001:db8::/32 1
fd00:1::1 fd00:2::1 dst fd00:2::/64 1
192.168.1.1 172.16.0.1 - - -
EOF
# One frame per case, in one capture: each pcap but the first loses its
# 24-byte file header.
i=0
: >"$T/classify.pcap"
while read -r src dst _; do
	udp_flows pcap --src "$src" --dst "$dst" --sport 40000 --dport 50000 --flows 1 --out "$T/case.pcap"
	if [ $i = 0 ]; then cat "$T/case.pcap"; else tail -c +25 "$T/case.pcap"; fi >>"$T/classify.pcap"
	i=$((i + 1))
done <"$T/classify.cases"
"$CPUSTEER" classify "$T/classify.pcap" --cpus 0-1 --key "$KEY1" --rules "$T/classify.rules" \
	>"$T/classify.txt" 2>"$T/classify.err" || t_fail "classify --rules failed: $(cat "$T/classify.err")"
"$CPUSTEER" classify "$T/classify.pcap" --cpus 0-1 --key "$KEY1" --rules "$T/classify.rules" --json \
	>"$T/classify.json" 2>"$T/classify.err" || t_fail "classify --rules --json failed: $(cat "$T/classify.err")"
"$CPUSTEER" classify "$T/classify.pcap" --cpus 0-1 --key "$KEY1" --json >"$T/classify.bare.json" ||
	t_fail "classify without rules failed"
t_eq "frames classified" "$i" "$(jq '.packets | length' "$T/classify.json")"
n=0
while read -r src dst dir prefix cpu; do
	n=$((n + 1))
	# Frame N's row, not the "N frames; ..." summary.
	row=$(awk -v n=$n '$1 == n && $2 != "frames;"' "$T/classify.txt")
	json=$(jq -c --argjson n $n '.packets[$n - 1] | [.cpu, .bucket, .rule]' "$T/classify.json")
	if [ "$dir" = - ]; then
		# No rule: the bucket table's CPU and bucket, as without --rules.
		t_eq "$src -> $dst: JSON" \
			"$(jq -c --argjson n $n '.packets[$n - 1] | [.cpu, .bucket, null]' "$T/classify.bare.json")" \
			"$json"
		case $row in
		*"[rule"*) t_fail "$src -> $dst: a rule is named: $row" ;;
		esac
		[[ $(awk '{ print $5 }' <<<"$row") =~ ^[0-9]+$ ]] || t_fail "$src -> $dst: no bucket: $row"
		continue
	fi
	t_eq "$src -> $dst: JSON" "[$cpu,null,\"$dir $prefix\"]" "$json"
	t_eq "$src -> $dst: text cpu, bucket" "$cpu -" "$(awk '{ print $4, $5 }' <<<"$row")"
	case $row in
	*"  [rule $dir $prefix]") ;;
	*) t_fail "$src -> $dst: the row does not end with [rule $dir $prefix]: $row" ;;
	esac
done <"$T/classify.cases"
t_end
t_exit
