// SPDX-License-Identifier: GPL-2.0
/* A receiver that counts IPv4 UDP frames by source port and drops them,
 * so that a test can hold what each of `cpusteer-bench gen`'s flows
 * delivered against the flow mix it was asked for (test_trafficgen.sh).
 * Ports count from the generator's first, 1024; the last entry takes
 * every other frame, so that none goes unseen.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP 0x0800
#define FIRST_PORT 1024
#define PORTS 4096

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, PORTS + 1);
} sport_frames SEC(".maps");

/* Where the frame's count goes: its port's entry, or the last one. */
static __always_inline __u32 slot_of(void *data, void *end)
{
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp;
	__u32 port;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP || ip->ihl != 5)
		return PORTS;
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return PORTS;
	port = bpf_ntohs(udp->source) - FIRST_PORT;
	return port < PORTS ? port : PORTS;
}

SEC("xdp")
int sport_count_prog(struct xdp_md *ctx)
{
	__u32 slot = slot_of((void *)(long)ctx->data, (void *)(long)ctx->data_end);
	__u64 *n = bpf_map_lookup_elem(&sport_frames, &slot);

	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
