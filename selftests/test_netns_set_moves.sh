#!/usr/bin/env bash
# What `cpusteer set` says about the flows it moves, checked on 100 000
# flows, and what set, status and load do when a target CPU is offline.
#
#   netns csA<pid>            netns csB<pid>
#   vethA<pid> ------------ vethB<pid>   cpusteer load --cpus 0-1 --buckets 512
#   (no traffic is sent)                 --key KEY1, then one set per test
#                           csF<pid> -- csG<pid>   a fresh veth pair, both
#                                        ends in B: load on an offline CPU
#
# The flows: the first 100 000 frames of `cpusteer sample-pcap --flows
# 100000`, each a distinct 5-tuple. `cpusteer classify` runs them through
# the real program once per key and gives each flow's 32-bit hash; the
# program puts a hash in bucket ((u64)hash * nbuckets) >> 32, so the
# bucket follows for any table size. The live table (steer_maps table)
# gives the bucket's CPU. A flow "moved" when its CPU before a set
# differs from its CPU after it; the share that moved must match what set
# printed, within 1 point (2 for a new key, whose figure is an estimate).
#
# The offline tests take CPU 1 offline for a few seconds. The EXIT trap
# brings it back online however the script ends, and the last of them
# checks that it is online again.
#
# Not in kernel runs: 15 s on the host, about 7 min under emulation, beyond CI's budget
set -u
. "$(dirname "$0")/lib_netns.sh"

NFLOWS=100000
CPU1_ONLINE=/sys/devices/system/cpu/cpu1/online
CPU1_TAKEN=0		# 1 while this script holds CPU 1 offline
VF=csF$$		# the fresh interface of the offline tests, in B
VG=csG$$
PINS_F=

DOUBLE=netns_set_doubling_buckets_moves_no_flow
HALVE=netns_set_halving_buckets_back_moves_no_flow
DROP=netns_set_dropping_a_cpu_moves_the_printed_share
ADD=netns_set_adding_a_cpu_moves_the_printed_share
WEIGHTS=netns_set_new_weights_move_the_printed_share
ODD=netns_set_odd_bucket_count_moves_the_printed_share
REKEY=netns_set_new_key_moves_about_the_printed_share
NOOP=netns_set_without_options_moves_nothing
OFF_STATUS=netns_status_shows_offline_cpu
OFF_LOAD=netns_load_refuses_offline_cpu
OFF_QSIZE=netns_set_qsize_works_with_offline_target
OFF_DROP=netns_set_dropping_offline_cpu_works
ALL=("$DOUBLE" "$HALVE" "$DROP" "$ADD" "$WEIGHTS" "$ODD" "$REKEY" "$NOOP"
	"$OFF_STATUS" "$OFF_LOAD" "$OFF_QSIZE" "$OFF_DROP")

# Brings CPU 1 back online if this script took it offline. Retried: an
# online can fail for a moment while the hotplug machinery settles.
cpu1_restore() {
	[ "$CPU1_TAKEN" = 1 ] || return 0
	for _ in $(seq 50); do
		echo 1 >"$CPU1_ONLINE" 2>/dev/null
		if [ "$(cat "$CPU1_ONLINE" 2>/dev/null)" = 1 ]; then
			CPU1_TAKEN=0
			return 0
		fi
		sleep 0.1
	done
	echo "#   CPU 1 could not be brought back online: echo 1 >$CPU1_ONLINE" >&2
	return 1
}

# On exit, before netns_cleanup (registered later, so run earlier).
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	cpu1_restore
	if [ -n "$PINS_F" ] && [ -d "$PINS_F" ]; then
		[ -e "/run/netns/$NSB" ] && cs unload "$VF" >/dev/null 2>&1
		[ -d "$PINS_F" ] && rm -rf "$PINS_F"
	fi
}

t_plan "${ALL[@]}"
netns_setup v4only || t_abort "setup: $NETNS_WHY"
t_on_exit cleanup
PINS_F=$(dirname "$PINS")/$VF
command -v python3 >/dev/null || t_abort "needs python3"

# --- the flows and their hashes -----------------------------------------------

# Writes the hash of each of the NFLOWS flows under KEY to FILE, one per
# line, in capture order. Fails (with a message on stdout) unless every
# flow is redirected, the flows are distinct and classify's bucket is the
# one ((u64)hash * nbuckets) >> 32 gives.
flow_hashes() {	# KEY FILE
	local json=$NETNS_TMP/classify.json

	"$CPUSTEER" classify --json --cpus 0-1 --buckets 512 --key "$1" "$NETNS_TMP/flows.pcap" \
		>"$json" 2>"$json.err" ||
		{ echo "cpusteer classify --key $1 failed: $(head -c 300 "$json.err")"; return 1; }
	python3 -c '
import json, sys
path, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
packets = json.load(open(path))["packets"][:n]
flows = set()
bad = []
for p in packets:
    f = p.get("flow") or {}
    flows.add((f.get("family"), f.get("proto"), f.get("src"), f.get("dst"),
               f.get("sport"), f.get("dport")))
    if p["verdict"] != "redirect" or type(p.get("hash")) is not int:
        bad.append("frame %d: verdict %r, hash %r" % (p["index"], p["verdict"], p.get("hash")))
    elif p["bucket"] != (p["hash"] * 512) >> 32:
        bad.append("frame %d: hash %d in bucket %d of 512, expected %d"
                   % (p["index"], p["hash"], p["bucket"], (p["hash"] * 512) >> 32))
if len(packets) != n or len(flows) != n:
    bad.insert(0, "%d frames, %d distinct flows; expected %d of each" % (len(packets), len(flows), n))
for b in bad[:5]:
    print(b)
if bad:
    sys.exit(1)
with open(out, "w") as f:
    f.write("".join("%d\n" % p["hash"] for p in packets))
' "$json" "$2" "$NFLOWS"
}

out=$("$CPUSTEER" sample-pcap --flows $NFLOWS "$NETNS_TMP/flows.pcap" 2>&1) ||
	t_abort "cpusteer sample-pcap --flows $NFLOWS failed: $out"
out=$(flow_hashes "$KEY1" "$NETNS_TMP/hash.key1") || t_abort "$out"
out=$(flow_hashes "$KEY2" "$NETNS_TMP/hash.key2") || t_abort "$out"
out=$(cs load "$VB" --cpus 0-1 --buckets 512 --key "$KEY1" 2>&1) ||
	t_abort "cpusteer load $VB --cpus 0-1 --buckets 512 --key KEY1 failed: $out"

# --- one set, before and after ------------------------------------------------

# The live bucket count of the instance on vethB, from status.
live_buckets() {
	cs status "$VB" --json 2>/dev/null | jq -r '.instances[0].buckets // empty'
}

# The live table of the instance on vethB into FILE (N from status).
snapshot() {	# FILE
	local n

	n=$(live_buckets)
	if [ -z "$n" ]; then
		t_fail "status $VB --json gave no bucket count"
		: >"$1"
		return 1
	fi
	"$TOOLS/steer_maps" table "$PINS" "$n" >"$1" || t_fail "cannot read the bucket table"
}

# Runs `cpusteer set vethB ARGS` between two snapshots of the live table.
# Sets SET_OUT (all it printed), PCT, CHANGED, OF (the printed figures,
# CHANGED and OF empty for a new key), N_BEFORE, N_AFTER, and the tables
# $NETNS_TMP/before, $NETNS_TMP/after.
run_set() {	# ARGS...
	local rc

	snapshot "$NETNS_TMP/before"
	SET_OUT=$(cs set "$VB" "$@" 2>&1)
	rc=$?
	[ $rc = 0 ] || t_fail "cpusteer set $VB $* exited with status $rc: $SET_OUT"
	snapshot "$NETNS_TMP/after"
	N_BEFORE=$(grep -c '' "$NETNS_TMP/before")
	N_AFTER=$(grep -c '' "$NETNS_TMP/after")
	PCT=$(sed -n 's/.* \([0-9][0-9.]*\)% of flows move to another CPU.*/\1/p' <<<"$SET_OUT")
	CHANGED=$(sed -n 's/.*(\([0-9]*\) of \([0-9]*\) buckets changed owner)$/\1/p' <<<"$SET_OUT")
	OF=$(sed -n 's/.*(\([0-9]*\) of \([0-9]*\) buckets changed owner)$/\2/p' <<<"$SET_OUT")
	[ -n "$PCT" ] || t_fail "set $* printed no \"X.X% of flows move to another CPU\": $SET_OUT"
}

# How many of the flows changed CPU: HASHES_x give the flows' hashes
# before and after (the same file unless the key changed), the tables the
# owners. Prints "MOVED TOTAL".
flows_moved() {	# HASHES_BEFORE TABLE_BEFORE HASHES_AFTER TABLE_AFTER
	python3 -c '
import sys
def cpus(hashes, table):
    t = open(table).read().split()
    n = len(t)
    return [t[(int(h) * n) >> 32] for h in open(hashes)]
a = cpus(sys.argv[1], sys.argv[2])
b = cpus(sys.argv[3], sys.argv[4])
print(sum(x != y for x, y in zip(a, b)), len(a))
' "$@"
}

# Checks that the share of flows that moved is within TOLERANCE points of
# the printed PCT. Sets MOVED.
check_share() {	# TOLERANCE HASHES_BEFORE HASHES_AFTER
	local total far

	read -r MOVED total < <(flows_moved "$2" "$NETNS_TMP/before" "$3" "$NETNS_TMP/after")
	if [ "${total:-0}" != $NFLOWS ]; then
		t_fail "could not place the $NFLOWS flows (placed ${total:-none})"
		return
	fi
	echo "#   printed ${PCT:-?}%, measured $MOVED of $NFLOWS flows moved ($(awk -v m="$MOVED" -v n=$NFLOWS 'BEGIN { printf "%.2f", 100 * m / n }')%)"
	[ -n "$PCT" ] || return
	far=$(awk -v m="$MOVED" -v n=$NFLOWS -v p="$PCT" -v t="$1" \
		'BEGIN { d = 100 * m / n - p; if (d < 0) d = -d; print (d > t) ? 1 : 0 }')
	[ "$far" = 0 ] ||
		t_fail "set printed $PCT% of flows moved, but $MOVED of $NFLOWS flows changed CPU: more than $1 point(s) apart"
}

# The buckets whose owner differs between the two snapshots (same size).
buckets_changed() {
	paste -d' ' "$NETNS_TMP/before" "$NETNS_TMP/after" | awk '$1 != $2' | grep -c ''
}

# A set that keeps the key: printed share against the flows, the live
# bucket count, and when the size stays, the printed "N of M buckets
# changed owner" against the tables. (A resize prints its own
# parenthesis; only its share is checked.)
check_keep_key_set() {	# TOLERANCE EXPECTED_BUCKETS
	check_share "$1" "$NETNS_TMP/hash.key1" "$NETNS_TMP/hash.key1"
	t_eq "live bucket count" "$2" "$N_AFTER"
	if [ "$N_BEFORE" = "$N_AFTER" ]; then
		t_eq "bucket count set printed (N of M buckets)" "$2" "$OF"
		t_eq "buckets set said changed owner" "$(buckets_changed)" "$CHANGED"
	fi
}

# A printed percentage is within TOLERANCE points of WANT.
check_pct_near() {	# WHAT WANT TOLERANCE
	local ok

	[ -n "$PCT" ] || return
	ok=$(awk -v p="$PCT" -v w="$2" -v t="$3" 'BEGIN { d = p - w; if (d < 0) d = -d; print (d <= t) }')
	[ "$ok" = 1 ] || t_fail "$1: expected about $2% (within $3), set printed $PCT%"
}

# --- moves ------------------------------------------------------------------

t_begin $DOUBLE
run_set --buckets 1024
check_keep_key_set 1 1024
t_eq "printed share for 512 -> 1024 buckets" 0.0 "$PCT"
t_eq "flows moved by 512 -> 1024 buckets" 0 "$MOVED"
t_end

t_begin $HALVE
run_set --buckets 512
check_keep_key_set 1 512
t_eq "printed share for 1024 -> 512 buckets" 0.0 "$PCT"
t_eq "flows moved by 1024 -> 512 buckets" 0 "$MOVED"
t_end

t_begin $DROP
run_set --cpus 0
check_keep_key_set 1 512
check_pct_near "--cpus 0-1 -> 0" 50 1
t_eq "CPUs owning buckets after --cpus 0" 0 "$(sort -u "$NETNS_TMP/after" | tr '\n' ' ' | sed 's/ $//')"
t_end

t_begin $ADD
run_set --cpus 0-1
check_keep_key_set 1 512
check_pct_near "--cpus 0 -> 0-1" 50 1
t_end

t_begin $WEIGHTS
run_set --weights 3,1
check_keep_key_set 1 512
# From 256/256 buckets to 384/128: a quarter of the hash space moves.
check_pct_near "--weights 1,1 -> 3,1" 25 1
t_eq "buckets of CPU 0 and CPU 1 after --weights 3,1" "384 128" \
	"$(grep -c '^0$' "$NETNS_TMP/after") $(grep -c '^1$' "$NETNS_TMP/after")"
t_end

t_begin $ODD
run_set --buckets 777
check_keep_key_set 1 777
t_end

t_begin $REKEY
run_set --key "$KEY2"
check_share 2 "$NETNS_TMP/hash.key1" "$NETNS_TMP/hash.key2"
t_eq "live bucket count" 777 "$N_AFTER"
t_eq "buckets changed by a new key alone" 0 "$(buckets_changed)"
grep -q 'new hash, every flow rehashed: about [0-9.]*% of flows move to another CPU' <<<"$SET_OUT" ||
	t_fail "set --key printed no \"new hash, every flow rehashed: about X%\": $SET_OUT"
t_end

t_begin $NOOP
run_set
check_share 0 "$NETNS_TMP/hash.key2" "$NETNS_TMP/hash.key2"
t_eq "printed share for set with no options" 0.0 "$PCT"
t_eq "printed buckets changed" 0 "$CHANGED"
t_eq "buckets changed in the live table" 0 "$(buckets_changed)"
t_eq "live bucket count" 777 "$N_AFTER"
t_end

# --- an offline target CPU ------------------------------------------------------

OFF_WHY=
if [ ! -e "$CPU1_ONLINE" ]; then
	OFF_WHY="$CPU1_ONLINE does not exist (CPU 1 absent or not hot-pluggable)"
elif [ ! -w "$CPU1_ONLINE" ]; then
	OFF_WHY="$CPU1_ONLINE is not writable"
elif [ "$(cat "$CPU1_ONLINE")" != 1 ]; then
	OFF_WHY="CPU 1 is already offline"
else
	# A fresh instance on 0-1, loaded while CPU 1 is online, and a fresh
	# interface for load to refuse.
	cs unload "$VB" >/dev/null 2>&1
	if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
		OFF_WHY="cpusteer load $VB --cpus 0-1 failed: $out"
	elif ! ip -n "$NSB" link add "$VF" type veth peer name "$VG" ||
		! ip -n "$NSB" link set "$VF" up || ! ip -n "$NSB" link set "$VG" up; then
		OFF_WHY="cannot add the veth pair $VF/$VG in $NSB"
	else
		CPU1_TAKEN=1
		if ! echo 0 >"$CPU1_ONLINE" 2>"$NETNS_TMP/offline.err" ||
			[ "$(cat "$CPU1_ONLINE")" != 0 ]; then
			OFF_WHY="cannot take CPU 1 offline: $(head -n1 "$NETNS_TMP/offline.err")"
			cpu1_restore
		fi
	fi
fi

# The kernel's cpumap of the instance on vethB: "CPU QSIZE" per entry,
# comma-separated, against EXPECTED. bpftool prints the map without BTF:
# key and value (struct bpf_cpumap_val, qsize first) as little-endian bytes,
# and a CPU with no entry as {"error": ...} in place of the value.
check_cpumap() {	# EXPECTED
	local got

	if ! command -v bpftool >/dev/null; then
		echo "#   (bpftool is not installed: the cpumap itself is not checked)"
		return
	fi
	got=$(bpftool -j map dump pinned "$PINS/cpu_map" 2>&1 | python3 -c '
import json, sys
le = lambda b: sum(int(x, 16) << (8 * i) for i, x in enumerate(b))
print(",".join("%d %d" % (le(e["key"]), le(e["value"][:4]))
               for e in json.load(sys.stdin) if isinstance(e["value"], list)))
' 2>&1)
	t_eq "cpumap entries (cpu qsize)" "$1" "$got"
}

t_begin $OFF_STATUS
if [ -n "$OFF_WHY" ]; then
	t_skip "$OFF_WHY"
else
	cs status "$VB" --json >"$NETNS_TMP/status.json" 2>"$NETNS_TMP/status.err" ||
		t_fail "status $VB --json failed: $(head -n1 "$NETNS_TMP/status.err")"
	t_eq "status --json: online of CPUs 0,1" "0 true,1 false" \
		"$(jq -r '[.instances[0].cpus[] | "\(.cpu) \(.online)"] | join(",")' "$NETNS_TMP/status.json" 2>&1)"
	cs status "$VB" >"$NETNS_TMP/status.txt" 2>&1 || t_fail "status $VB failed"
	grep -q 'warning: CPU 1 offline' "$NETNS_TMP/status.txt" ||
		t_fail "status $VB has no line 'warning: CPU 1 offline ...': $(tr '\n' '|' <"$NETNS_TMP/status.txt")"
	# cpu, weight, buckets, then its kthread's pid, policy and priority.
	grep -qE '^ +1 +[0-9]+ +[0-9]+ +([0-9]+ +[a-z]+ +-?[0-9]+|none +- +-) +OFFLINE$' \
		"$NETNS_TMP/status.txt" ||
		t_fail "status $VB does not mark CPU 1's row OFFLINE"
	t_end
fi

t_begin $OFF_LOAD
if [ -n "$OFF_WHY" ]; then
	t_skip "$OFF_WHY"
else
	cs load "$VF" --cpus 0-1 >"$NETNS_TMP/load.out" 2>"$NETNS_TMP/load.err"
	rc=$?
	if [ $rc = 0 ] || [ $rc -ge 126 ]; then
		t_fail "load $VF --cpus 0-1 with CPU 1 offline: exit status $rc, expected a refusal"
	fi
	t_eq "lines on stderr" 1 "$(grep -c '' "$NETNS_TMP/load.err")"
	grep -qE '^cpusteer: bad CPU 1: .*offline' "$NETNS_TMP/load.err" ||
		t_fail "expected 'cpusteer: bad CPU 1: ... offline', got: $(head -n2 "$NETNS_TMP/load.err" | tr '\n' '|')"
	t_eq "XDP program on $VF" "" "$(xdp_prog_id "$VF")"
	[ -e "$PINS_F" ] && t_fail "load refused but left $PINS_F"
	t_end
fi

t_begin $OFF_QSIZE
if [ -n "$OFF_WHY" ]; then
	t_skip "$OFF_WHY"
else
	out=$(cs set "$VB" --qsize 1024 2>&1)
	rc=$?
	t_eq "set --qsize 1024 exit status (CPU 1 offline, still a target) [$out]" 0 $rc
	t_eq "status: qsize" 1024 "$(cs status "$VB" --json 2>/dev/null | jq -r '.instances[0].qsize')"
	t_eq "status: CPUs" "0,1" \
		"$(cs status "$VB" --json 2>/dev/null | jq -r '[.instances[0].cpus[].cpu] | join(",")')"
	# The kernel's cpumap: both entries, each with the new queue size.
	check_cpumap "0 1024,1 1024"
	t_end
fi

t_begin $OFF_DROP
if [ -n "$OFF_WHY" ]; then
	t_skip "$OFF_WHY"
else
	out=$(cs set "$VB" --cpus 0 2>&1)
	rc=$?
	t_eq "set --cpus 0 exit status (CPU 1 offline) [$out]" 0 $rc
	n=$(live_buckets)
	t_eq "owners of the ${n:-?} buckets" 0 \
		"$("$TOOLS/steer_maps" table "$PINS" "${n:-512}" | sort -u | tr '\n' ' ' | sed 's/ $//')"
	t_eq "status: CPUs" 0 \
		"$(cs status "$VB" --json 2>/dev/null | jq -r '[.instances[0].cpus[].cpu] | join(",")')"
	check_cpumap "0 1024"
	cpu1_restore
	t_eq "CPU 1 online again" 1 "$(cat "$CPU1_ONLINE")"
	t_end
fi
# Outside any test: a failure here makes the script exit non-zero.
cpu1_restore || t_fail "cpu1_back_online: CPU 1 is still offline"

t_exit
