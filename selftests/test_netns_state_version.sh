#!/usr/bin/env bash
# Pins left by another cpusteer version are refused, never misread: the
# record's version says whether this binary knows the shape of the maps and
# what their bytes mean (the configuration grew and the default hash changed
# in version 8, for one). A record of another version makes every command
# that would read it refuse in one line, changing nothing; unload still
# removes the instance, which is the way out the refusals name.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         cpusteer load --cpus 0-1
#                                         record's version set to N - 1
set -u
. "$(dirname "$0")/lib_netns.sh"

REFUSED=netns_record_of_another_version_is_refused
UNLOADED=netns_record_of_another_version_unloads

t_plan "$REFUSED" "$UNLOADED"
command -v bpftool >/dev/null || t_skip_all "needs bpftool to rewrite the pinned record"
command -v jq >/dev/null || t_skip_all "needs jq to read bpftool's output"
netns_setup || t_abort "setup: $NETNS_WHY"
out=$(cs load "$VB" --cpus 0-1 2>&1) || t_abort "cpusteer load failed: $out"

# Rewrites the record's first field, its version (a little-endian u32), to
# one less than this binary's.
age_record() {
	local record=$PINS/instance_state bytes version value

	bytes=$(bpftool -j map lookup pinned "$record" key 0 0 0 0 | jq -r '.value | join(" ")') ||
		return 1
	read -r -a value <<<"$bytes"
	version=$((value[0] + (value[1] << 8) + (value[2] << 16) + (value[3] << 24)))
	value[0]=$(((version - 1) & 255))
	value[1]=$((((version - 1) >> 8) & 255))
	value[2]=$((((version - 1) >> 16) & 255))
	value[3]=$((((version - 1) >> 24) & 255))
	bpftool map update pinned "$record" key 0 0 0 0 value "${value[@]}"
}

refused() {	# WHAT COMMAND...
	local what=$1

	shift
	t_refused "$what" "*another cpusteer version*cpusteer unload*" "$@"
}

t_begin "$REFUSED"
prog=$(xdp_prog_id)
age_record || t_abort "cannot rewrite the record"
pins=$(ls "$PINS")
refused "status" cs status "$VB"
refused "set" cs set "$VB" --cpus 0
refused "set --hash" cs set "$VB" --hash siphash13
refused "load" cs load "$VB" --cpus 0
refused "balance" cs balance "$VB"
t_eq "program after the refusals" "$prog" "$(xdp_prog_id)"
t_eq "pins after the refusals" "$pins" "$(ls "$PINS")"
t_end

t_begin "$UNLOADED"
out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
t_eq "program after unload" "" "$(xdp_prog_id)"
[ -e "$PINS" ] && t_fail "pins left: $(ls "$PINS")"
t_end
t_exit
