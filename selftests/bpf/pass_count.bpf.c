// SPDX-License-Identifier: GPL-2.0
/* Another user's XDP program, for the tests where cpusteer shares an
 * interface with it: it passes every frame and counts it, so a test can
 * tell that it still runs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} pass_count SEC(".maps");

SEC("xdp")
int pass_count_prog(struct xdp_md *ctx)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&pass_count, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
