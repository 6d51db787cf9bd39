// SPDX-License-Identifier: GPL-2.0
/* Sends every IPv4 UDP frame back out of the device it came in on
 * (XDP_TX) and passes the rest. On a veth the bounced frame reaches the
 * peer as an XDP frame, with no skb: the way to give the peer's program
 * frames that carry no RX hash without an XDP traffic generator, which
 * some kernels refuse.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP 0x0800

SEC("xdp")
int udp4_bounce(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	return ip->protocol == IPPROTO_UDP ? XDP_TX : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
