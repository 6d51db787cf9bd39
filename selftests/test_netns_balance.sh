#!/usr/bin/env bash
# `cpusteer balance` on an instance carrying a skewed load: four elephant
# flows carry 60% of the frames, and the hash key puts all four in buckets
# of CPU 0, so the static table gives CPU 0 about 80% of the load.
# balance must even it out by moving a few buckets, and its every step
# must go through set's path: other commands keep working around it. A
# signal ends it between steps or while it waits for the lock, never
# within a step; a step killed all the same is reported as balance's.
#
#   netns csA<pid>                         netns csB<pid>
#   vethA<pid> ---------------------------- vethB<pid>
#   cpusteer-bench gen: 200 UDP flows,     cpusteer load --cpus 0-1 --key KEY
#     flows 0-3 carry 60% of frames          --bucket-stats --remote drop
#     (10.201.0.1:1024+i -> 10.201.0.2:9)  cpusteer balance, in steps
#
# The load of each CPU is what the program redirected to it, read from
# its counters over a window of frames counted, not of time: a guest
# under emulation is ten times slower and must come to the same result.
#
# Not in kernel runs: the plan is test_bucket_balance's and each step is set's, which test_netns_set_live checks there (9 s on the host, 3 min under emulation)
set -u
. "$(dirname "$0")/lib_netns.sh"

# All four elephants of the generator land in CPU 0's buckets of a fresh
# 512-bucket table over CPUs 0-1 under this key (checked below with
# classify, which runs the kernel program itself).
KEY_ELEPHANTS_ON_0=00000000000000000000000000000006
FLOWS=200
WINDOW=20000

EVENS=netns_balance_evens_skewed_load
DRY=netns_balance_dry_run_writes_nothing
AROUND=netns_balance_lets_other_commands_work
GROW=netns_set_refuses_more_buckets_than_counted
REFUSED=netns_balance_refuses_instance_without_bucket_stats
JSONL=netns_balance_json_is_one_object_per_line
SIGNAL=netns_balance_signal_ends_lock_wait
KILLED=netns_balance_killed_step_reported_as_balance

t_plan "$DRY" "$EVENS" "$AROUND" "$JSONL" "$SIGNAL" "$KILLED" "$GROW" "$REFUSED"
netns_setup v4only || t_abort "setup: $NETNS_WHY"

table() { "$TOOLS/steer_maps" table "$PINS" 512; }

lines_at_least() {	# FILE N
	[ "$(wc -l <"$1")" -ge "$2" ]
}

# Whether process PID is cpusteer by now (env and nsenter exec it: the
# shell may block signals around the fork) and blocks SIGINT (2, bit 1).
blocks_sigint() {	# PID
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = cpusteer ] && signal_in_set "$1" SigBlk 2
}

# cpusteer in B in the background with every signal at its default (a
# non-interactive shell starts background jobs with SIGINT ignored);
# $BG_PID is cpusteer's PID: env and nsenter exec.
bg_default() {	# ARGS...
	env --default-signal nsenter --net="/run/netns/$NSB" "$CPUSTEER" "$@" &
	BG_PID=$!
	_bg_pids+=("$BG_PID")
}

# Jain's index of the frames redirected to CPUs 0 and 1 between two
# readings of the counters, and the share of CPU 0, as "JAIN SHARE0".
fairness() {	# BEFORE AFTER
	awk 'FNR == NR { b[$1] = $2; next } { a[$1] = $2 }
	     END {
		x = a["redirected_cpu0"] - b["redirected_cpu0"]
		y = a["redirected_cpu1"] - b["redirected_cpu1"]
		if (x + y == 0) { print "0 0"; exit }
		printf "%.3f %.3f\n", (x + y) ^ 2 / (2 * (x * x + y * y)), x / (x + y)
	     }' "$1" "$2"
}

# The fairness of the next WINDOW frames the program counts.
measure() {	# NAME
	local n

	read_counters "$NETNS_TMP/$1.0"
	n=$(field "$NETNS_TMP/$1.0" rx_packets)
	wait_counted "$n" $WINDOW >/dev/null || t_fail "$WINDOW frames did not arrive for $1"
	read_counters "$NETNS_TMP/$1.1"
	fairness "$NETNS_TMP/$1.0" "$NETNS_TMP/$1.1"
}

# A step line of balance --json is one object; these are its figures.
steps_with_moves() { jq -s '[.[] | select(.applied)] | length' "$1"; }
most_moves_in_a_step() { jq -s '[.[] | .moves | length] | max // 0' "$1"; }

out=$(cs load "$VB" --cpus 0-1 --key $KEY_ELEPHANTS_ON_0 --bucket-stats --remote drop 2>&1) ||
	t_abort "cpusteer load failed: $out"
# The generator's flow i is 10.201.0.1:1024+i -> 10.201.0.2:9.
for i in 0 1 2 3; do
	udp_flows pcap --src 10.201.0.1 --dst 10.201.0.2 --sport $((1024 + i)) --dport 9 \
		--flows 1 --out "$NETNS_TMP/elephant$i.pcap" || t_abort "cannot write a capture"
	"$CPUSTEER" classify "$NETNS_TMP/elephant$i.pcap" --cpus 0-1 --key $KEY_ELEPHANTS_ON_0 \
		--json | jq -r '.packets[0].cpu'
done >"$NETNS_TMP/elephant_cpus"
cpus=$(sort -u "$NETNS_TMP/elephant_cpus" | tr '\n' ' ')
[ "$cpus" = "0 " ] || t_abort "the key no longer puts the four elephants on CPU 0 (got CPUs $cpus)"
bg_a "$CPUSTEER_BENCH" gen "$VA" --flows $FLOWS --elephants 4 --elephant-share 60 --duration 600 \
	>"$NETNS_TMP/gen" 2>&1
gen=$BG_PID

t_begin "$DRY"
read -r jain share0 < <(measure static)
echo "# static table: Jain $jain, CPU 0 carries $share0 of the load"
awk -v j="$jain" 'BEGIN { exit !(j <= 0.85) }' ||
	t_fail "the static table is fair already (Jain $jain): the test proves nothing"
table >"$NETNS_TMP/table.0"
out=$(cs balance "$VB" --once --dry-run --json --interval 1 2>&1)
echo "$out" >"$NETNS_TMP/dry"
t_eq "lines of balance --once" 1 "$(wc -l <"$NETNS_TMP/dry")"
t_eq "written by --dry-run" false "$(jq -r .applied "$NETNS_TMP/dry")"
t_ge "moves planned" 1 "$(jq '.moves | length' "$NETNS_TMP/dry")"
t_eq "CPU the planned moves leave" 0 "$(jq -r '[.moves[].from] | unique | join(",")' "$NETNS_TMP/dry")"
table >"$NETNS_TMP/table.1"
cmp -s "$NETNS_TMP/table.0" "$NETNS_TMP/table.1" || t_fail "--dry-run changed the table"
t_end

t_begin "$EVENS"
bg_b "$CPUSTEER" balance "$VB" --interval 1 --json >"$NETNS_TMP/balance" 2>"$NETNS_TMP/balance.err"
balancer=$BG_PID
# Until a step finds nothing to move, at most 60 steps.
for _ in $(seq 600); do
	jq -e -s 'any(.[]; .stop == "balanced")' "$NETNS_TMP/balance" >/dev/null 2>&1 && break
	sleep 0.1
done
jq -e -s 'any(.[]; .stop == "balanced")' "$NETNS_TMP/balance" >/dev/null 2>&1 ||
	t_fail "balance did not reach its threshold: $(tail -c 600 "$NETNS_TMP/balance")"
read -r jain share0 < <(measure balanced)
echo "# after balance: Jain $jain, CPU 0 carries $share0 of the load"
awk -v j="$jain" 'BEGIN { exit !(j >= 0.95) }' || t_fail "load still uneven: Jain $jain"
t_ge "steps that moved buckets" 1 "$(steps_with_moves "$NETNS_TMP/balance")"
# 1% of 512 buckets, the default limit: few flows move in any one step.
most=$(most_moves_in_a_step "$NETNS_TMP/balance")
[ "$most" -le 5 ] || t_fail "a step moved $most buckets, above the default 5"
t_end

t_begin "$AROUND"
# balance holds the lock only while it steps: set and status get through.
out=$(cs set "$VB" --qsize 512 2>&1) || t_fail "set under balance failed: $out"
t_eq "queue size after set" 512 "$(cs status "$VB" --json | jq ".instances[0].qsize")"
# A set that keeps CPUs, weights, size and key keeps balance's table.
table >"$NETNS_TMP/table.2"
out=$(cs set "$VB" --qsize 256 2>&1) || t_fail "second set failed: $out"
table >"$NETNS_TMP/table.3"
cmp -s "$NETNS_TMP/table.2" "$NETNS_TMP/table.3" ||
	t_fail "set --qsize moved buckets: $(diff "$NETNS_TMP/table.2" "$NETNS_TMP/table.3" | head -3)"
kill -TERM "$balancer"
wait "$balancer"
t_eq "balance's exit status after SIGTERM" 0 "$?"
[ -s "$NETNS_TMP/balance.err" ] && t_fail "balance wrote to stderr: $(head -3 "$NETNS_TMP/balance.err")"
t_eq "phase after balance" ready "$(cs status "$VB" --json | jq -r ".instances[0].phase")"
t_end

# A reader that parses each line must get an object from every one.
t_begin "$JSONL"
bg_default balance "$VB" --interval 0.2 --json --max-moves 1 >"$NETNS_TMP/jsonl" 2>&1
jsonl=$BG_PID
# Signalled once it has printed steps, not while it starts (under
# emulation that takes seconds), when the signal would still kill it.
wait_until 60 lines_at_least "$NETNS_TMP/jsonl" 3 || t_fail "balance printed no 3 steps in 60 s"
stop_wait "$jsonl" INT 4
t_eq "balance's exit status after SIGINT while it slept" 0 "$RC"
t_ge "steps printed" 2 "$(wc -l <"$NETNS_TMP/jsonl")"
# jq reads a blank line as no value at all, and would not say so.
bad=$(while IFS= read -r line; do [ -n "$line" ] && jq -e 'type == "object"' <<<"$line" \
	>/dev/null 2>&1 || printf '%q ' "$line"; done <"$NETNS_TMP/jsonl")
t_eq "lines that are not one JSON object" "" "$bad"
t_end

# Another command holds the instance's lock (flock on its folder, as every
# command takes it): a signal ends balance's wait for it at once, with
# exit status 130, before the holder lets go, and no step is taken.
t_begin "$SIGNAL"
table >"$NETNS_TMP/table.s0"
# The holder: a shell that takes the lock on its own descriptor and
# becomes sleep, which keeps it until killed.
(exec 9<"$PINS" && flock -x 9 && exec sleep 120) &
holder=$!
_bg_pids+=("$holder")
wait_until 20 lock_held "$PINS" || t_fail "the holder did not take the lock in 20 s"
bg_default balance "$VB" --interval 0.2 --json >"$NETNS_TMP/sig.out" 2>"$NETNS_TMP/sig.err"
waiter=$BG_PID
# Once balance holds SIGINT back, the signal is taken where balance means
# to take it: it blocks it before it opens the instance.
wait_until 30 blocks_sigint "$waiter" || t_fail "balance did not block SIGINT in 30 s"
stop_wait "$waiter" INT 4
kill -0 "$holder" 2>/dev/null || t_fail "the lock was let go before balance ended: the test proves nothing"
t_eq "exit status ($(cat "$NETNS_TMP/sig.err"))" 130 "$RC"
t_eq "steps printed" "" "$(cat "$NETNS_TMP/sig.out")"
t_eq "lines on stderr" 1 "$(wc -l <"$NETNS_TMP/sig.err")"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
table >"$NETNS_TMP/table.s1"
cmp -s "$NETNS_TMP/table.s0" "$NETNS_TMP/table.s1" || t_fail "the interrupted balance moved buckets"
t_end

# A step killed after it recorded that it moves buckets: status says a
# balance step was interrupted (not a set), and set closes it. The step
# dies at its last bpf call, the record's write that says it is done; the
# table is made skewed again (CPUs 0, then 0-1) before each run, so that
# both runs plan moves and make the same calls.
t_begin "$KILLED"
skew() { cs set "$VB" --cpus 0 >/dev/null && cs set "$VB" --cpus 0-1 >/dev/null; }
skew
in_b strace -f -qq -o "$NETNS_TMP/balance.strace" -e trace=bpf \
	"$CPUSTEER" balance "$VB" --once --json --interval 1 >"$NETNS_TMP/once" 2>&1
calls=$(grep -c 'bpf(' "$NETNS_TMP/balance.strace")
t_eq "moves applied by the counted step" true "$(jq -r .applied "$NETNS_TMP/once" 2>&1)"
skew
in_b strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:signal=SIGKILL:when="$calls" \
	"$CPUSTEER" balance "$VB" --once --interval 1 >/dev/null 2>&1
status=$(cs status "$VB" --json | jq -r '.instances[0] | "\(.health) \(.problem)"')
case $status in
"interrupted_balance a balance step (pid "*") was interrupted"*) ;;
*) t_fail "status after the killed step: $status" ;;
esac
out=$(cs set "$VB" 2>&1) || t_fail "set after the killed step failed: $out"
t_eq "health after set" ok "$(cs status "$VB" --json | jq -r '.instances[0].health')"
t_end

# The counters were sized for the load's 512 buckets.
t_begin "$GROW"
table >"$NETNS_TMP/table.g0"
err=$(cs set "$VB" --buckets 1024 2>&1 >/dev/null)
t_eq "exit status" 1 "$?"
case $err in
*"hold 512 buckets"*) ;;
*) t_fail "the refusal does not say what the counters hold: $err" ;;
esac
t_eq "buckets after the refusal" 512 "$(cs status "$VB" --json | jq ".instances[0].buckets")"
table >"$NETNS_TMP/table.g1"
cmp -s "$NETNS_TMP/table.g0" "$NETNS_TMP/table.g1" || t_fail "the refused set changed the table"
out=$(cs set "$VB" --buckets 256 2>&1) || t_fail "set --buckets 256 failed: $out"
t_end

t_begin "$REFUSED"
bg_stop "$gen"
out=$(cs unload "$VB" 2>&1) || t_fail "unload failed: $out"
out=$(cs load "$VB" --cpus 0-1 --key $KEY_ELEPHANTS_ON_0 2>&1) || t_fail "load failed: $out"
table >"$NETNS_TMP/table.4"
err=$(cs balance "$VB" --once 2>&1 >/dev/null)
t_eq "exit status" 1 "$?"
t_eq "lines on stderr" 1 "$(printf '%s\n' "$err" | wc -l)"
case $err in
*"--bucket-stats"*) ;;
*) t_fail "the refusal does not say to load with --bucket-stats: $err" ;;
esac
table >"$NETNS_TMP/table.5"
cmp -s "$NETNS_TMP/table.4" "$NETNS_TMP/table.5" || t_fail "a refused balance changed the table"
t_end
t_exit
