// SPDX-License-Identifier: GPL-2.0
/* The cheapest possible XDP program. Benchmarks measure it in the same run
 * as steering, so their figures are ratios to what the machine costs per
 * packet before any program does work, not absolutes that drift.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int cpusteer_drop_floor(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
