/* SPDX-License-Identifier: GPL-2.0 */
/* One bounded parser from Ethernet to the L4 ports. It fills the flow key
 * with exactly the fields that may decide a CPU, and nothing that changes
 * within a flow (VLAN tags, IP options, TTL, TOS, IP ID, flow label, the
 * extension headers themselves).
 */
#ifndef CPUSTEER_PARSE_H
#define CPUSTEER_PARSE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "cpusteer.h"

/* vmlinux.h carries types, not the uapi #defines. */
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8
#define IP_MF 0x2000
#define IP_OFFSET 0x1FFF
#define NEXTHDR_HOP 0
#define NEXTHDR_ROUTING 43
#define NEXTHDR_FRAGMENT 44
#define NEXTHDR_DEST 60

/* The parser only reads the linear part of a frame: headers that are not
 * there are treated as truncated, which passes the packet on.
 */
struct hdr_cursor {
	void *pos;
	void *end;
};

static __always_inline void *cursor_take(struct hdr_cursor *cur, __u32 len)
{
	void *start = cur->pos;

	if (start + len > cur->end)
		return NULL;
	cur->pos = start + len;
	return start;
}

enum parse_status {
	PARSE_FLOW,	/* key holds a flow: steer it */
	PARSE_NON_IP,	/* not IP: the non-ip verdict applies */
	PARSE_FAILED,	/* *reason says why; pass the packet */
};

struct parse_notes {
	bool vlan;
	bool fragment;
	bool l3_only;
};

static __always_inline bool proto_has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP;
}

/* TCP, UDP and SCTP all start with the two 16-bit ports. Other protocols
 * hash on addresses and protocol alone.
 */
static __always_inline enum parse_status
parse_ports(struct hdr_cursor *cur, struct cpusteer_flow_key *key,
	    struct parse_notes *notes, __u32 *reason)
{
	__be16 *ports;

	if (!proto_has_ports(key->proto)) {
		notes->l3_only = true;
		return PARSE_FLOW;
	}
	ports = cursor_take(cur, 2 * sizeof(__be16));
	if (!ports) {
		*reason = CPUSTEER_PASS_TRUNC_L4;
		return PARSE_FAILED;
	}
	key->sport = bpf_ntohs(ports[0]);
	key->dport = bpf_ntohs(ports[1]);
	return PARSE_FLOW;
}

static __always_inline enum parse_status
parse_ipv4(struct hdr_cursor *cur, struct cpusteer_flow_key *key,
	   struct parse_notes *notes, __u32 *reason)
{
	struct iphdr *iph = cursor_take(cur, sizeof(*iph));

	if (!iph) {
		*reason = CPUSTEER_PASS_TRUNC_L3;
		return PARSE_FAILED;
	}
	if (iph->version != 4 || iph->ihl < 5) {
		*reason = CPUSTEER_PASS_BAD_L3;
		return PARSE_FAILED;
	}
	/* Re-take the header at its full IHL length: the 4-bit field keeps
	 * the length provably bounded, where "ihl - 5" would not be.
	 */
	cur->pos = iph;
	if (!cursor_take(cur, iph->ihl * 4)) {
		*reason = CPUSTEER_PASS_TRUNC_L3;
		return PARSE_FAILED;
	}
	key->family = 4;
	key->saddr[0] = iph->saddr;
	key->daddr[0] = iph->daddr;
	key->proto = iph->protocol;
	/* Only the first fragment carries ports: hash every fragment of a
	 * datagram on addresses and protocol so they all meet on one CPU.
	 */
	if (iph->frag_off & bpf_htons(IP_MF | IP_OFFSET)) {
		notes->fragment = true;
		return PARSE_FLOW;
	}
	return parse_ports(cur, key, notes, reason);
}

static __always_inline bool ipv6_is_ext_header(__u8 nexthdr)
{
	return nexthdr == NEXTHDR_HOP || nexthdr == NEXTHDR_ROUTING ||
	       nexthdr == NEXTHDR_DEST || nexthdr == NEXTHDR_FRAGMENT;
}

static __always_inline enum parse_status
parse_ipv6(struct hdr_cursor *cur, struct cpusteer_flow_key *key,
	   struct parse_notes *notes, __u32 *reason)
{
	struct ipv6hdr *ip6h = cursor_take(cur, sizeof(*ip6h));
	__u8 nexthdr;
	int i;

	if (!ip6h) {
		*reason = CPUSTEER_PASS_TRUNC_L3;
		return PARSE_FAILED;
	}
	if (ip6h->version != 6) {
		*reason = CPUSTEER_PASS_BAD_L3;
		return PARSE_FAILED;
	}
	key->family = 6;
	__builtin_memcpy(key->saddr, &ip6h->saddr, sizeof(key->saddr));
	__builtin_memcpy(key->daddr, &ip6h->daddr, sizeof(key->daddr));
	nexthdr = ip6h->nexthdr;

#pragma unroll
	for (i = 0; i < CPUSTEER_MAX_EXT_HEADERS; i++) {
		struct ipv6_opt_hdr *opt;
		struct frag_hdr *frag;

		if (!ipv6_is_ext_header(nexthdr))
			break;
		if (nexthdr == NEXTHDR_FRAGMENT) {
			frag = cursor_take(cur, sizeof(*frag));
			if (!frag) {
				*reason = CPUSTEER_PASS_EXT_HDRS;
				return PARSE_FAILED;
			}
			/* Every fragment's header names the same first
			 * header of the fragmentable part: hash on it, with
			 * no ports, as for IPv4 fragments.
			 */
			notes->fragment = true;
			key->proto = frag->nexthdr;
			return PARSE_FLOW;
		}
		/* Hop-by-hop, routing and destination options share one
		 * layout: length in 8-octet units, not counting the first.
		 */
		opt = cursor_take(cur, 8);
		if (!opt || !cursor_take(cur, opt->hdrlen * 8)) {
			*reason = CPUSTEER_PASS_EXT_HDRS;
			return PARSE_FAILED;
		}
		nexthdr = opt->nexthdr;
	}
	if (ipv6_is_ext_header(nexthdr)) {
		*reason = CPUSTEER_PASS_EXT_HDRS;
		return PARSE_FAILED;
	}
	key->proto = nexthdr;
	return parse_ports(cur, key, notes, reason);
}

/* Up to two VLAN tags (802.1Q, or an 802.1AD outer tag with an 802.1Q
 * inner one) are skipped; the tags themselves never reach the key.
 */
static __always_inline enum parse_status
parse_packet(struct xdp_md *ctx, struct cpusteer_flow_key *key,
	     struct parse_notes *notes, __u32 *reason)
{
	struct hdr_cursor cur = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
	struct ethhdr *eth = cursor_take(&cur, sizeof(*eth));
	__be16 proto;
	int i;

	if (!eth) {
		*reason = CPUSTEER_PASS_TRUNC_L2;
		return PARSE_FAILED;
	}
	proto = eth->h_proto;

#pragma unroll
	for (i = 0; i < 2; i++) {
		struct vlan_hdr *vlan;

		if (proto != bpf_htons(ETH_P_8021Q) &&
		    proto != bpf_htons(ETH_P_8021AD))
			break;
		vlan = cursor_take(&cur, sizeof(*vlan));
		if (!vlan) {
			*reason = CPUSTEER_PASS_TRUNC_L2;
			return PARSE_FAILED;
		}
		notes->vlan = true;
		proto = vlan->h_vlan_encapsulated_proto;
	}
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		*reason = CPUSTEER_PASS_VLAN_DEPTH;
		return PARSE_FAILED;
	}

	if (proto == bpf_htons(ETH_P_IP))
		return parse_ipv4(&cur, key, notes, reason);
	if (proto == bpf_htons(ETH_P_IPV6))
		return parse_ipv6(&cur, key, notes, reason);
	return PARSE_NON_IP;
}

#endif /* CPUSTEER_PARSE_H */
