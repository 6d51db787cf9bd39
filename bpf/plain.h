/* SPDX-License-Identifier: GPL-2.0 */
/* The plain frame, read with the fewest tests: untagged Ethernet carrying
 * an IPv4 datagram without options, or an IPv6 one with at most two
 * hop-by-hop, routing or destination options headers, not a fragment, of
 * TCP, UDP or SCTP, whole in the frame's linear part. Nearly every frame
 * a host steers is one, and parse.h's parser, which must also walk tags,
 * options, longer chains and datagrams beyond the linear part, spent more
 * instructions on it than the hash did.
 *
 * The flow read here is exactly the one parse.h reads from the same
 * frame (test_steer_plain holds the two to it). A frame that is not plain
 * gets no verdict here: the full parser reads it again from the start and
 * decides, so a frame at any of these limits is steered or passed as it
 * always was. The tests are fewer because they ask more of the frame:
 * one bound covers every header read, and a datagram wholly in the linear
 * part needs none of the parser's checks against the rest of the frame.
 */
#ifndef CPUSTEER_PLAIN_H
#define CPUSTEER_PLAIN_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "parse.h"

#define IPV4_PLAIN_VERSION_IHL 0x45	/* version 4, a 20-octet header */
/* Where the ports end in a plain frame of each family. */
#define PLAIN_IPV4_END (ETH_HDR_LEN + IPV4_MIN_HDR_LEN + L4_PORTS_LEN)
#define PLAIN_IPV6_END (ETH_HDR_LEN + IPV6_HDR_LEN + L4_PORTS_LEN)
/* Extension headers a plain IPv6 datagram may have in front of its
 * transport header: a hop-by-hop header and destination options, say.
 * Longer chains are rare, and each header more is another unrolled walk
 * for the verifier.
 */
#define PLAIN_IPV6_EXT_MAX 2

/* Whether `len` bytes from `from`, a length field's count, are at least
 * `least` and all in the linear part. The parser asks no more of a plain
 * frame's length, and a longer datagram is a multi-buffer frame's, which
 * it checks with a helper call.
 */
static __always_inline bool plain_length(void *from, void *end, __u32 len, __u32 least)
{
	return len >= least && len <= (__u64)(end - from);
}

/* An IPv4 frame, which the caller has found to be PLAIN_IPV4_END long at
 * least and of that EtherType.
 */
static __always_inline bool plain_ipv4(void *data, void *end, struct flow *f)
{
	void *l3 = data + ETH_HDR_LEN;
	struct iphdr *iph = l3;

	if (*(__u8 *)l3 != IPV4_PLAIN_VERSION_IHL ||
	    !plain_length(l3, end, bpf_ntohs(iph->tot_len), IPV4_MIN_HDR_LEN + L4_PORTS_LEN) ||
	    iph->frag_off & bpf_htons(IP_MF | IP_OFFSET) || !proto_has_ports(iph->protocol))
		return false;
	f->family = 4;
	f->proto = iph->protocol;
	f->addr[0] = load_u64(&iph->saddr);
	f->ports = load_u32(l3 + IPV4_MIN_HDR_LEN);
	f->notes = 0;
	return true;
}

static __always_inline void plain_ipv6_flow(void *l3, void *l4, __u8 proto, struct flow *f)
{
	f->family = 6;
	f->proto = proto;
	f->addr[0] = load_u64(l3 + IPV6_SADDR_OFF);
	f->addr[1] = load_u64(l3 + IPV6_SADDR_OFF + 8);
	f->addr[2] = load_u64(l3 + IPV6_DADDR_OFF);
	f->addr[3] = load_u64(l3 + IPV6_DADDR_OFF + 8);
	f->ports = load_u32(l4);
	f->notes = 0;
}

/* Up to PLAIN_IPV6_EXT_MAX hop-by-hop, routing and destination options
 * headers, from the one of type `nexthdr` after the fixed header, then
 * the transport header. Each is only skipped, as the parser skips it; the
 * one bound that the ports are in the frame, and the length test that
 * they are in the datagram, cover every header before them. A fragment
 * header, or a longer chain, is the full parser's.
 */
static __always_inline bool plain_ipv6_ext(void *l3, void *end, __u8 nexthdr, struct flow *f)
{
	struct ipv6hdr *ip6h = l3;
	void *pos = l3 + IPV6_HDR_LEN;
	__u64 used;
	int i;

#pragma unroll
	for (i = 0; i < PLAIN_IPV6_EXT_MAX; i++) {
		__u8 *ext = pos;

		if (!ipv6_is_options_header(nexthdr) || pos + IPV6_EXT_UNIT > end)
			return false;
		nexthdr = ext[0];
		pos += ipv6_options_header_len(ext);
		if (proto_has_ports(nexthdr))
			goto transport;
	}
	return false;
transport:
	if (pos + L4_PORTS_LEN > end)
		return false;
	/* The headers and the ports, from the fixed header's end: a
	 * difference of packet pointers, which clang must not fold into a
	 * scalar minus a pointer (parse.h's frame_offset).
	 */
	barrier_var(pos);
	used = pos - (l3 + IPV6_HDR_LEN) + L4_PORTS_LEN;
	if (!plain_length(l3 + IPV6_HDR_LEN, end, bpf_ntohs(ip6h->payload_len), used))
		return false;
	plain_ipv6_flow(l3, pos, nexthdr, f);
	return true;
}

/* A frame of the IPv6 EtherType, as long as an IPv4 one must be. */
static __always_inline bool plain_ipv6(void *data, void *end, struct flow *f)
{
	void *l3 = data + ETH_HDR_LEN;
	struct ipv6hdr *ip6h = l3;

	if (data + PLAIN_IPV6_END > end || ip6h->version != 6)
		return false;
	if (!proto_has_ports(ip6h->nexthdr))
		return plain_ipv6_ext(l3, end, ip6h->nexthdr, f);
	if (!plain_length(l3 + IPV6_HDR_LEN, end, bpf_ntohs(ip6h->payload_len), L4_PORTS_LEN))
		return false;
	plain_ipv6_flow(l3, l3 + IPV6_HDR_LEN, ip6h->nexthdr, f);
	return true;
}

#endif /* CPUSTEER_PLAIN_H */
