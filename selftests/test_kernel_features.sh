#!/usr/bin/env bash
# What `cpusteer status` says the kernel offers, held against what the
# kernel itself lists through other tools: bpftool for its BTF, genl for
# its generic netlink families. These answers decide what cpusteer does on
# an older kernel (and fill the README's table of kernels), so a probe
# that answers wrong on one kernel must fail here, on that kernel.
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir
features=$T_TMP/status.json

# The answer of status for KEY of its "kernel" object.
status_says() {	# JQ_PATH
	jq -r ".kernel$1" "$features"
}

# Dumped once: each dump takes seconds on an emulated guest.
btf_dump() {
	[ -s "$T_TMP/btf" ] ||
		bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$T_TMP/btf"
	cat "$T_TMP/btf"
}

cpumap_gro_as_btf_says() {
	local want=false

	btf_dump | awk '/STRUCT .bpf_cpu_map_entry./ { s = 1; next } s && /^\[/ { exit }
		s && /^\t.gro. / { found = 1 } END { exit !found }' && want=true
	t_eq "cpumap_gro" "$want" "$(status_says .cpumap_gro)"
}

tracepoints_as_btf_says() {
	local tp want

	for tp in $(jq -r '.kernel.tracepoints | keys[]' "$features"); do
		want=false
		btf_dump | grep -q "^\[[0-9]*\] TYPEDEF 'btf_trace_$tp' " && want=true
		t_eq "tracepoint $tp" "$want" "$(status_says ".tracepoints.$tp")"
	done
}

napi_netlink_as_genl_says() {
	local want

	want=$(genl_napi_netlink)
	[ -n "$want" ] || { t_skip "no genl (iproute2) to ask"; return; }
	t_eq "napi_netlink" "$want" "$(status_says .napi_netlink)"
}

all_tests() {
	t_run cpumap_gro_as_btf_says cpumap_gro_as_btf_says
	t_run tracepoints_as_btf_says tracepoints_as_btf_says
	t_run napi_netlink_as_genl_says napi_netlink_as_genl_says
}

t_plan_of all_tests
[ "$(id -u)" = 0 ] || t_skip_all "needs root"
"$CPUSTEER" status --json > "$features" || t_abort "cpusteer status --json failed"
all_tests
t_exit
