// SPDX-License-Identifier: GPL-2.0
/* Whether the kernel lets an extension (freplace) program replace an XDP
 * program: libxdp's dispatcher is an XDP program whose slots are filled
 * with such extensions, so without them libxdp attaches one program alone.
 * The loader loads the target, then the extension against it, and attaches
 * the extension, the steps libxdp takes; the programs never see a packet.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int probe_target(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("freplace/probe_target")
int probe_extension(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
