#!/usr/bin/env bash
# Bad input is refused cleanly: each command below exits non-zero, prints
# exactly one line on stderr that starts with "cpusteer: " and names the
# cause, and leaves everything as it was: the XDP program on vethB, its
# ethtool features, its NAPI sysfs settings, the bpffs, and (when an
# instance is loaded) that instance's configuration and bucket table.
#
#   netns csA<pid>                        netns csB<pid>
#   vethA<pid> 10.200.0.1 ------------- vethB<pid> 10.200.0.2
#                                         first nothing loaded, then
#                                         cpusteer load --cpus 0-1
#
# Not in kernel runs: all refusals but two come before any kernel call (10 s on the host, 6 min under emulation)
set -u
. "$(dirname "$0")/lib_netns.sh"

NOSUCH=nosuch$$
# Refused while nothing is loaded, then while an instance runs.
UNLOADED=(bad_input_load_no_such_interface bad_input_load_cpu_99 bad_input_load_cpu_2
	bad_input_load_empty_cpu_list bad_input_load_weights_all_zero bad_input_load_qsize_0
	bad_input_load_qsize_16385 bad_input_load_remote_redirect_no_such_interface
	bad_input_load_bad_key bad_input_load_bad_xdp_mode bad_input_load_inner_port_0
	bad_input_load_native_unsupported
	bad_input_load_device_setting_fails bad_input_set_not_loaded bad_input_stats_not_loaded
	bad_input_balance_not_loaded bad_input_unload_not_loaded bad_input_load_not_root)
LOADED=(bad_input_load_already_loaded bad_input_set_cpu_2_while_loaded
	bad_input_set_weights_all_zero_while_loaded bad_input_set_qsize_0_while_loaded
	bad_input_set_buckets_below_cpus bad_input_set_non_ip_cpu_2
	bad_input_set_remote_redirect_no_such_interface bad_input_set_xdp_mode
	bad_input_set_inner_unknown_tunnel bad_input_set_inner_port_of_two_kinds
	bad_input_set_bucket_stats bad_input_balance_without_bucket_stats
	bad_input_balance_threshold_0 bad_input_balance_max_moves_0 bad_input_balance_interval_0
	bad_input_set_not_root bad_input_unload_not_root)

t_plan "${UNLOADED[@]}" "${LOADED[@]}"
netns_setup || t_abort "setup: $NETNS_WHY"

# cpusteer in B as an unprivileged user.
cs_nobody() {
	in_b setpriv --reuid=nobody --regid=nogroup --clear-groups "$CPUSTEER" "$@"
}

# The keys of status --json that are counters, as a JSON array.
COUNTER_KEYS=$("$TOOLS/counter_keys" | jq -R . | jq -cs .) ||
	t_abort "no counter keys from $TOOLS/counter_keys"

# Everything a refused command must leave alone, as text.
state() {
	echo "xdp prog: $(xdp_prog_id) lo: $(xdp_prog_id lo)"
	in_b ethtool -k "$VB"
	echo "gro_flush_timeout: $(b_sysfs gro_flush_timeout)"
	echo "napi_defer_hard_irqs: $(b_sysfs napi_defer_hard_irqs)"
	echo "threaded: $(b_sysfs threaded)"
	# Other tests' instances may come and go; this run's names carry $$.
	# /sys/fs/bpf/xdp itself is libxdp's lock folder: any libxdp attach
	# makes it on a fresh bpffs and none removes it (xdp-loader unload
	# leaves it too), because another user may hold its lock. What is in
	# it still counts.
	find /sys/fs/bpf | grep -v -e '^/sys/fs/bpf/cpusteer$' -e '^/sys/fs/bpf/xdp$' |
		grep -v "^/sys/fs/bpf/cpusteer/" | sort
	find /sys/fs/bpf/cpusteer 2>/dev/null | grep -F "$$" | sort
	if [ -d "$PINS" ]; then
		# Its counters move with whatever reaches vethB (the stack's own
		# IPv6 and IGMP frames count as seen_l3_only): a refusal must
		# leave the configuration, not the traffic, as it was. Which
		# keys are counters the registry says.
		cs status "$VB" --json | jq -c --argjson counters "$COUNTER_KEYS" \
			'.instances | map(with_entries(select(.key as $k | $counters | index($k) | not)))'
		"$TOOLS/steer_maps" table "$PINS" 512 | md5sum
	fi
}

# Runs COMMAND... and checks it was refused as described at the top;
# MENTION is a piece of the cause the error line must contain.
refused() {	# NAME MENTION COMMAND...
	local name=$1 mention=$2 before after rc err

	shift 2
	t_begin "$name"
	before=$(state)
	"$@" >"$NETNS_TMP/out" 2>"$NETNS_TMP/err"
	rc=$?
	after=$(state)
	err=$(cat "$NETNS_TMP/err")
	[ $rc != 0 ] || t_fail "exit status: expected non-zero, got 0 (command: ${*: -6})"
	t_eq "lines on stderr" 1 "$(wc -l <"$NETNS_TMP/err")"
	case $err in
	"cpusteer: "*) ;;
	*) t_fail "stderr: expected a line starting 'cpusteer: ', got '$err'" ;;
	esac
	case $err in
	*"$mention"*) ;;
	*) t_fail "stderr: expected a mention of '$mention', got '$err'" ;;
	esac
	[ "$before" = "$after" ] || t_fail "state changed:" \
		"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -5 | tr '\n' ';')"
	t_end
}

# Nothing loaded.
refused bad_input_load_no_such_interface "no such interface" cs load "$NOSUCH" --cpus 0-1
refused bad_input_load_cpu_99 "99" cs load "$VB" --cpus 0,99
refused bad_input_load_cpu_2 "2" cs load "$VB" --cpus 0-2
refused bad_input_load_empty_cpu_list "empty" cs load "$VB" --cpus ""
refused bad_input_load_weights_all_zero "0,0" cs load "$VB" --cpus 0-1 --weights 0,0
refused bad_input_load_qsize_0 "'0'" cs load "$VB" --cpus 0-1 --qsize 0
refused bad_input_load_qsize_16385 "16385" cs load "$VB" --cpus 0-1 --qsize 16385
refused bad_input_load_remote_redirect_no_such_interface "$NOSUCH" \
	cs load "$VB" --cpus 0-1 --remote "redirect:$NOSUCH"
refused bad_input_load_bad_key "key" cs load "$VB" --cpus 0-1 --key 0123
refused bad_input_load_bad_xdp_mode "xdp-mode" cs load "$VB" --cpus 0-1 --xdp-mode offload
refused bad_input_load_inner_port_0 "port '0'" cs load "$VB" --cpus 0-1 --inner vxlan:0
# These two fail late, after the maps were filled and (the second) after
# the program was attached: load must undo what it did. The loopback has
# no native XDP, and no NAPI instance to take a gro_flush_timeout.
refused bad_input_load_native_unsupported "skb" cs load lo --cpus 0-1
refused bad_input_load_device_setting_fails "gro_flush_timeout" \
	cs load lo --cpus 0-1 --xdp-mode skb --gro-flush-timeout 1000
refused bad_input_set_not_loaded "not loaded" cs set "$VB" --cpus 0
refused bad_input_stats_not_loaded "not loaded" cs stats "$VB" --json --count 1 --interval 1
refused bad_input_balance_not_loaded "not loaded" cs balance "$VB" --once --interval 0.1
refused bad_input_unload_not_loaded "not loaded" cs unload "$VB"
if command -v setpriv >/dev/null; then
	refused bad_input_load_not_root "root" cs_nobody load "$VB" --cpus 0-1
else
	t_begin bad_input_load_not_root
	t_skip "setpriv (util-linux) is not installed"
fi

# Loaded: a second load, and set or unload with bad input, must not touch
# the running instance.
if ! out=$(cs load "$VB" --cpus 0-1 --key "$KEY1" 2>&1); then
	t_abort "cpusteer load failed: $out"
fi
refused bad_input_load_already_loaded "cpusteer set" cs load "$VB" --cpus 0
refused bad_input_set_cpu_2_while_loaded "2" cs set "$VB" --cpus 0-2
refused bad_input_set_weights_all_zero_while_loaded "0,0" cs set "$VB" --weights 0,0
refused bad_input_set_qsize_0_while_loaded "'0'" cs set "$VB" --qsize 0
refused bad_input_set_buckets_below_cpus "bucket" cs set "$VB" --buckets 1
refused bad_input_set_non_ip_cpu_2 "2" cs set "$VB" --non-ip cpu:2
refused bad_input_set_remote_redirect_no_such_interface "$NOSUCH" \
	cs set "$VB" --remote "redirect:$NOSUCH"
refused bad_input_set_xdp_mode "xdp-mode" cs set "$VB" --xdp-mode skb
refused bad_input_set_inner_unknown_tunnel "mpls" cs set "$VB" --inner gre,mpls
refused bad_input_set_inner_port_of_two_kinds "both vxlan and geneve" \
	cs set "$VB" --inner vxlan:6081,geneve
# The counters are sized when the programs load: set cannot add them.
refused bad_input_set_bucket_stats "bucket-stats" cs set "$VB" --bucket-stats
refused bad_input_balance_without_bucket_stats "load it with --bucket-stats" \
	cs balance "$VB" --once --interval 0.1
refused bad_input_balance_threshold_0 "threshold '0'" cs balance "$VB" --threshold 0
refused bad_input_balance_max_moves_0 "max-moves '0'" cs balance "$VB" --max-moves 0
refused bad_input_balance_interval_0 "interval '0'" cs balance "$VB" --interval 0
if command -v setpriv >/dev/null; then
	refused bad_input_set_not_root "root" cs_nobody set "$VB" --cpus 0
	refused bad_input_unload_not_root "root" cs_nobody unload "$VB"
else
	for t in bad_input_set_not_root bad_input_unload_not_root; do
		t_begin $t
		t_skip "setpriv (util-linux) is not installed"
	done
fi
t_exit
