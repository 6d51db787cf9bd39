#!/usr/bin/env bash
# The plain frame's short path (bpf/plain.h) is the one taken: a plain
# IPv4/UDP or IPv6/UDP frame run through the loaded program's xlated
# code (scripts/path-length.py) executes at least 40 fewer instructions
# under the default configuration than under --inner gre, which sends it
# through the full parser and steers it alike (test_steer_plain holds the
# two parsers to the same decisions). The figure is a count, not a time:
# the same on a busy machine as on a quiet one.
#
# Not in kernel runs: scripts/path-length.py models the xlated layout of the kernel it was written against (inlined map lookups, helper names); which path a frame takes is the object's, the same on every kernel, and test_steer_plain runs there
#
#   netns csB<pid>
#   vethB<pid>   cpusteer load --cpus 0-1 [--inner gre]
#                scripts/path-length.py --pinned PINS/prog --frame F
set -u
. "$(dirname "$0")/lib_netns.sh"

# Ethernet, then IPv4 (IHL 5, 10.0.0.1 -> 10.0.0.2) or IPv6 (2001:db8::1
# -> 2001:db8::2), UDP 1234 -> 80 with 18 bytes of payload.
ETH=000000000000020000000001
UDP=04d20050001a0000$(printf '%036d' 0)
FRAME_IPV4=${ETH}08004500002e00010000401100000a0000010a000002$UDP
FRAME_IPV6=${ETH}86dd60000000001a1140$(printf '20010db8%023d1' 0)$(printf '20010db8%023d2' 0)$UDP
SAVED_AT_LEAST=40

# The instructions the loaded program executes for FRAME, or nothing
# when it is not redirected.
path_length() {	# FRAME
	python3 "$TU_TOP/scripts/path-length.py" --pinned "$PINS/prog" --frame "$1" \
		>"$NETNS_TMP/path.out" 2>&1
	grep -q 'XDP_REDIRECT' "$NETNS_TMP/path.out" &&
		sed -n 's/^path: \([0-9]*\) slots executed.*/\1/p' "$NETNS_TMP/path.out"
}

# Loads with ARGS, counts FRAME's path, unloads.
length_under() {	# FRAME ARGS...
	local frame=$1 out n

	shift
	out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" "$@" 2>&1) ||
		{ echo "cpusteer load $*: $out" >&2; return 1; }
	n=$(path_length "$frame")
	cs unload "$VB" >/dev/null 2>&1
	[ -n "$n" ] || { echo "no redirect: $(tail -n 2 "$NETNS_TMP/path.out")" >&2; return 1; }
	echo "$n"
}

test_plain_frames_take_the_short_path() {	# FAMILY FRAME
	local plain full

	plain=$(length_under "$2") || { t_fail "$1, default configuration"; return; }
	full=$(length_under "$2" --inner gre) || { t_fail "$1, --inner gre"; return; }
	echo "#   $1/UDP: $plain instructions, $full through the full parser"
	t_ge "$1/UDP: instructions the short path saves" "$SAVED_AT_LEAST" $((full - plain))
}

all_tests() {
	t_run plain_ipv4_frames_take_the_short_path test_plain_frames_take_the_short_path \
		IPv4 "$FRAME_IPV4"
	t_run plain_ipv6_frames_take_the_short_path test_plain_frames_take_the_short_path \
		IPv6 "$FRAME_IPV6"
}

t_plan_of all_tests
netns_setup || t_abort "setup: $NETNS_WHY"
command -v bpftool >/dev/null || t_abort "bpftool is missing (make setup installs it)"
all_tests
t_exit
