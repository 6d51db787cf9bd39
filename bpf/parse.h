/* SPDX-License-Identifier: GPL-2.0 */
/* One bounded parser from Ethernet to the L4 ports. It yields exactly the
 * fields that may decide a CPU, as they are on the wire, and nothing that
 * changes within a flow (VLAN tags, IP options, TTL, TOS, IP ID, flow
 * label, the extension headers themselves).
 *
 * It is the hot path, so it keeps the flow in registers: addresses are read
 * as whole 64-bit words straight into the hash's message layout, ports as
 * one 32-bit word, and nothing is zeroed or copied to a key in memory. The
 * decision record's flow key is built from these only when classify asks.
 * Under the default configuration, plain.h reads the commonest frames
 * with fewer tests first, to the same flow, and hands the rest here.
 *
 * Lengths: a datagram ends where its IP header says (IPv4 Total Length,
 * IPv6 Payload Length), not where the frame does, so Ethernet padding is
 * never read as ports. A length field shorter than the IP header, or
 * longer than the frame, makes the packet malformed (RFC 791, RFC 8200):
 * it is passed, counted as bad_ip_length, for the stack to drop and count.
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
#define ETH_P_QINQ1 0x9100
#define ETH_P_QINQ2 0x9200
#define ETH_P_PPP_SES 0x8864	/* PPPoE session stage (RFC 2516) */
#define PPPOE_HDR_LEN 8		/* its header and the PPP protocol field */
#define PPPOE_VER_TYPE 0x11	/* version 1, type 1 */
#define PPP_IP 0x0021		/* the PPP protocols of IP datagrams (RFC 1332, 5072) */
#define PPP_IPV6 0x0057
#define ETH_P_MPLS_UC 0x8847	/* MPLS (RFC 3032), unicast and multicast */
#define ETH_P_MPLS_MC 0x8848
#define MPLS_LSE_LEN 4
#define MPLS_BOS_BYTE 2		/* the entry's byte holding S, its low bit */
/* Beyond where any label stack ends: a tunnel's payload (tunnel.h's
 * TUNNEL_OFF_MAX, 0x8000), an Ethernet header, four tags and eight labels.
 */
#define MPLS_L3_OFF_MAX 0x8100
#define IP_MF 0x2000
#define IP_OFFSET 0x1FFF
#define IP6_MF 0x0001
#define IP6_OFFSET 0xFFF8
#define NEXTHDR_HOP 0
#define NEXTHDR_ROUTING 43
#define NEXTHDR_FRAGMENT 44
#define NEXTHDR_DEST 60
#define ETH_HDR_LEN 14
#define VLAN_HDR_LEN 4
#define IPV4_MIN_HDR_LEN 20
#define IPV6_HDR_LEN 40
/* The IPv6 addresses' offsets as numbers, not vmlinux.h fields: those
 * carry CO-RE relocations, and a word read 8 bytes into a relocated field
 * costs three instructions to address where a plain offset folds into the
 * load. A wire header has one layout.
 */
#define IPV6_SADDR_OFF 8
#define IPV6_DADDR_OFF 24
#define IPV6_EXT_UNIT 8		/* extension headers come in 8-octet units */
#define L4_PORTS_LEN 4

/* Notes on a parsed flow, for the seen_* counters, and on a failed parse,
 * for the reason an inner one gives its tunnel (tunnel.h). The layer-2
 * ones are the decision record's path bits, copied as they are.
 */
#define FLOW_VLAN	CPUSTEER_PATH_VLAN
#define FLOW_FRAGMENT	0x2
#define FLOW_L3_ONLY	0x4
#define FLOW_EXT_LIMIT	0x8	/* the chain went on past the headers walked */
#define FLOW_PPPOE	CPUSTEER_PATH_PPPOE	/* a whole PPPoE session header */
#define FLOW_MPLS	CPUSTEER_PATH_MPLS	/* a whole MPLS label stack entry */
_Static_assert(!(CPUSTEER_PATH_BITS & (FLOW_FRAGMENT | FLOW_L3_ONLY | FLOW_EXT_LIMIT)),
	       "the path bits are notes of their own");

/* A flow as the hash reads it (bpf/hash.h has the message format). */
struct flow {
	__u64 addr[4];	/* source then destination address, wire bytes read
			 * as little-endian words: IPv4 fills addr[0] only */
	__u32 ports;	/* source then destination port, wire bytes; 0 when
			 * the protocol has none or the packet is a fragment */
	__u8 proto;
	__u8 family;	/* 4 or 6 */
	__u8 notes;	/* FLOW_* */
};

/* Where the transport header starts and how much of the datagram is left
 * from there: where a tunnel header would be.
 */
struct l4_span {
	void *start;
	__u64 room;	/* 64 bits, as every length the parse walks with: a
			 * 32-bit one was widened again at each use */
};

enum parse_status {
	PARSE_FLOW,	/* the flow is complete: steer it (parse_ethernet:
			 * the network header and its type are found) */
	PARSE_FAILED,	/* *reason says why; pass the packet */
};

/* Unaligned word loads from the packet: the verifier allows them where
 * the machine does, and one load beats four byte loads and shifts.
 */
static __always_inline __u64 load_u64(const void *p)
{
	return *(const __u64 *)p;
}

static __always_inline __u32 load_u32(const void *p)
{
	return *(const __u32 *)p;
}

/* The frame's bounds, read from the context once: clang may otherwise
 * address later reads through a moved context pointer, which the
 * verifier refuses.
 *
 * Inside a tunnel the inner frame ends where the outer datagram does,
 * not at the frame's end: padding or trailing bytes after the outer
 * datagram are never read as inner headers. Every header is then checked
 * against both ends, the frame's for the verifier and the datagram's for
 * the meaning. `in_tunnel` is a constant where each frame is made, so the
 * outer parse carries none of the datagram's checks.
 */
struct frame {
	struct xdp_md *ctx;
	void *data;
	void *end;	/* of the linear part */
	bool in_tunnel;
	__u32 dgram_end;	/* in_tunnel: the outer datagram's end, from data */
};

static __always_inline struct frame frame_of(struct xdp_md *ctx)
{
	return (struct frame){
		.ctx = ctx,
		.data = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
	};
}

static __always_inline struct frame tunnel_frame_of(struct xdp_md *ctx, __u32 dgram_end)
{
	struct frame fr = frame_of(ctx);

	fr.in_tunnel = true;
	fr.dgram_end = dgram_end;
	return fr;
}

/* Where `pos` is, from the frame's start. Both values are opaque to
 * clang, which would otherwise fold a constant or a length it adds later
 * into `4 - data` or `len - data`: a scalar minus a pointer, which the
 * verifier refuses, where a pointer minus a pointer is allowed; and the
 * offset must not be added to a helper's result as a pointer either.
 */
static __always_inline __u64 frame_offset(const struct frame *fr, void *pos)
{
	__u64 off;

	barrier_var(pos);
	off = pos - fr->data;
	barrier_var(off);
	return off;
}

/* Whether the `len` bytes at `pos` run past the outer datagram, inside a
 * tunnel. Lengths, not pointers, as in frame_holds below.
 */
static __always_inline bool past_dgram(const struct frame *fr, void *pos, __u32 len)
{
	return fr->in_tunnel && frame_offset(fr, pos) + len > fr->dgram_end;
}

static __always_inline enum parse_status parse_fail(__u32 *reason, __u32 why)
{
	*reason = why;
	return PARSE_FAILED;
}

/* A header that runs past the linear part of the frame is cut short in a
 * single-buffer frame; in a multi-buffer frame (xdp.frags) it continues in
 * a fragment that this parser does not read. Asking the frame's full
 * length costs a helper call, so only failures ask.
 */
static __always_inline enum parse_status cut_short(const struct frame *fr, __u32 *reason,
						   __u32 why)
{
	if (bpf_xdp_get_buff_len(fr->ctx) > (__u64)(fr->end - fr->data))
		why = CPUSTEER_PASS_HEADERS_IN_FRAGS;
	return parse_fail(reason, why);
}

/* The bytes of the whole frame, fragments included, from `pos` on: a
 * helper call, so asked only when the linear part is not enough.
 */
static __always_inline __u64 frame_bytes_from(const struct frame *fr, void *pos)
{
	return bpf_xdp_get_buff_len(fr->ctx) - frame_offset(fr, pos);
}

/* Where the datagram that starts at `l3` and claims `len` bytes ends is
 * checked against the frame: only a multi-buffer frame can hold more than
 * its linear part. Inside a tunnel, against the outer datagram, which the
 * frame holds.
 *
 * Lengths are compared, not pointers: `len` comes from a byte swap, whose
 * result older verifiers (6.1's among them) leave unbounded, and they
 * refuse to add an unbounded value to a packet pointer.
 */
static __always_inline bool frame_holds(const struct frame *fr, void *l3, __u32 len)
{
	if (fr->in_tunnel)
		return !past_dgram(fr, l3, len);
	return len <= (__u64)(fr->end - l3) || len <= frame_bytes_from(fr, l3);
}

/* The bytes of the frame from `l3` on, or inside a tunnel of the outer
 * datagram: what a jumbogram at `l3` holds.
 */
static __always_inline __u64 bytes_from(const struct frame *fr, void *l3)
{
	if (fr->in_tunnel)
		return fr->dgram_end - frame_offset(fr, l3);
	return frame_bytes_from(fr, l3);
}

static __always_inline bool proto_has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP;
}

/* TCP, UDP and SCTP all start with the two 16-bit ports; other protocols
 * hash on addresses and protocol alone. `room` is what the datagram has
 * left from `l4` on.
 */
static __always_inline enum parse_status
parse_ports(const struct frame *fr, void *l4, __u64 room, struct flow *f, __u32 *reason)
{
	if (!proto_has_ports(f->proto)) {
		f->notes |= FLOW_L3_ONLY;
		return PARSE_FLOW;
	}
	if (room < L4_PORTS_LEN)
		return parse_fail(reason, CPUSTEER_PASS_TRUNC_L4);
	if (l4 + L4_PORTS_LEN > fr->end)
		return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L4);
	f->ports = load_u32(l4);
	return PARSE_FLOW;
}

static __always_inline enum parse_status
parse_ipv4(const struct frame *fr, void *l3, struct flow *f, struct l4_span *l4, __u32 *reason)
{
	struct iphdr *iph = l3;
	__u32 hdr_len, total;
	__u8 version_ihl;

	if (past_dgram(fr, l3, IPV4_MIN_HDR_LEN))
		return parse_fail(reason, CPUSTEER_PASS_TRUNC_L3);
	if (l3 + IPV4_MIN_HDR_LEN > fr->end)
		return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L3);
	/* One load for both nibbles: bitfield reads would load thrice. */
	version_ihl = *(__u8 *)l3;
	hdr_len = (version_ihl & 0x0f) * 4;
	if ((version_ihl >> 4) != 4 || hdr_len < IPV4_MIN_HDR_LEN)
		return parse_fail(reason, CPUSTEER_PASS_BAD_L3);
	/* The header, options included, is all there before its Total
	 * Length is believed, as the stack's ip_rcv checks it: options cut
	 * short are a header cut short, whatever Total Length says.
	 */
	if (past_dgram(fr, l3, hdr_len))
		return parse_fail(reason, CPUSTEER_PASS_TRUNC_L3);
	/* Lengths, not pointers: the transport header's address is then
	 * formed where the ports are read, not held in a register from here
	 * on through the length checks and the helper call they may make.
	 */
	if (hdr_len > (__u64)(fr->end - l3))
		return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L3);
	total = bpf_ntohs(iph->tot_len);
	if (total < hdr_len || !frame_holds(fr, l3, total))
		return parse_fail(reason, CPUSTEER_PASS_BAD_LENGTH);
	f->family = 4;
	f->addr[0] = load_u64(&iph->saddr);	/* saddr, daddr: adjacent */
	f->proto = iph->protocol;
	l4->start = l3 + hdr_len;
	l4->room = total - hdr_len;
	/* Only the first fragment carries ports: hash every fragment of a
	 * datagram on addresses and protocol so they all meet on one CPU.
	 */
	if (iph->frag_off & bpf_htons(IP_MF | IP_OFFSET)) {
		f->notes |= FLOW_FRAGMENT;
		return PARSE_FLOW;
	}
	return parse_ports(fr, l3 + hdr_len, total - hdr_len, f, reason);
}

/* Hop-by-hop, routing and destination options: the extension headers
 * whose length is in their second octet, in 8-octet units not counting
 * the first.
 */
static __always_inline bool ipv6_is_options_header(__u8 nexthdr)
{
	return nexthdr == NEXTHDR_HOP || nexthdr == NEXTHDR_ROUTING || nexthdr == NEXTHDR_DEST;
}

static __always_inline __u64 ipv6_options_header_len(const __u8 *ext)
{
	return (ext[1] + 1) * IPV6_EXT_UNIT;
}

static __always_inline bool ipv6_is_ext_header(__u8 nexthdr)
{
	return ipv6_is_options_header(nexthdr) || nexthdr == NEXTHDR_FRAGMENT;
}

/* The IPv6 datagram's length after the fixed header. Payload Length 0
 * with a hop-by-hop header is a jumbogram (RFC 2675), whose length is in
 * an option: the frame's end is its end. Returns false when the frame is
 * shorter than the length says.
 */
static __always_inline bool ipv6_payload_room(const struct frame *fr, struct ipv6hdr *ip6h,
					      __u64 *room)
{
	void *l3 = ip6h;
	__u32 payload = bpf_ntohs(ip6h->payload_len);

	if (!payload && ip6h->nexthdr == NEXTHDR_HOP) {
		*room = bytes_from(fr, l3) - IPV6_HDR_LEN;
		return true;
	}
	*room = payload;
	return frame_holds(fr, l3, IPV6_HDR_LEN + payload);
}

/* The transport header of an IPv6 datagram: at `pos`, of type `proto`,
 * with `room` bytes of the datagram left.
 */
static __always_inline enum parse_status
parse_ipv6_transport(const struct frame *fr, void *pos, __u64 room, __u8 proto,
		     struct flow *f, struct l4_span *l4, __u32 *reason)
{
	f->proto = proto;
	l4->start = pos;
	l4->room = room;
	return parse_ports(fr, pos, room, f, reason);
}

/* The extension headers from `pos` on, the first of type `nexthdr`, then
 * the transport header after them.
 */
static __always_inline enum parse_status
parse_ipv6_ext(const struct frame *fr, void *pos, __u64 room, __u8 nexthdr,
	       struct flow *f, struct l4_span *l4, __u32 *reason)
{
	__u64 len;
	int i;

#pragma unroll
	for (i = 0; i < CPUSTEER_MAX_EXT_HEADERS; i++) {
		__u8 *ext = pos;

		if (!ipv6_is_ext_header(nexthdr))
			break;
		if (room < IPV6_EXT_UNIT)
			return parse_fail(reason, CPUSTEER_PASS_EXT_HDRS);
		if (pos + IPV6_EXT_UNIT > fr->end)
			return cut_short(fr, reason, CPUSTEER_PASS_EXT_HDRS);
		if (nexthdr == NEXTHDR_FRAGMENT) {
			struct frag_hdr *frag = pos;

			/* Every fragment names the same first header of
			 * the fragmentable part: hash on it, with no ports,
			 * as for IPv4. An atomic fragment (offset 0, no
			 * more) is a whole datagram (RFC 6946): it keeps
			 * its ports and its flow's CPU.
			 */
			if (frag->frag_off & bpf_htons(IP6_MF | IP6_OFFSET)) {
				f->proto = frag->nexthdr;
				f->notes |= FLOW_FRAGMENT;
				l4->start = pos;	/* not read: a fragment */
				l4->room = room;
				return PARSE_FLOW;
			}
			len = IPV6_EXT_UNIT;
		} else {
			len = ipv6_options_header_len(ext);
			if (room < len)
				return parse_fail(reason, CPUSTEER_PASS_EXT_HDRS);
			if (pos + len > fr->end)
				return cut_short(fr, reason, CPUSTEER_PASS_EXT_HDRS);
		}
		nexthdr = ext[0];
		pos += len;
		room -= len;
	}
	/* Only a walk that ran out can stop at an extension header: the test
	 * of `i` spares the other exits a second look at `nexthdr`.
	 */
	if (i == CPUSTEER_MAX_EXT_HEADERS && ipv6_is_ext_header(nexthdr)) {
		f->notes |= FLOW_EXT_LIMIT;
		return parse_fail(reason, CPUSTEER_PASS_EXT_HDRS);
	}
	return parse_ipv6_transport(fr, pos, room, nexthdr, f, l4, reason);
}

static __always_inline enum parse_status
parse_ipv6(const struct frame *fr, void *l3, struct flow *f, struct l4_span *l4, __u32 *reason)
{
	struct ipv6hdr *ip6h = l3;
	void *pos = l3 + IPV6_HDR_LEN;
	__u64 room;
	__u8 nexthdr;

	if (past_dgram(fr, l3, IPV6_HDR_LEN))
		return parse_fail(reason, CPUSTEER_PASS_TRUNC_L3);
	if (pos > fr->end)
		return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L3);
	if (ip6h->version != 6)
		return parse_fail(reason, CPUSTEER_PASS_BAD_L3);
	if (!ipv6_payload_room(fr, ip6h, &room))
		return parse_fail(reason, CPUSTEER_PASS_BAD_LENGTH);
	f->family = 6;
	f->addr[0] = load_u64(l3 + IPV6_SADDR_OFF);
	f->addr[1] = load_u64(l3 + IPV6_SADDR_OFF + 8);
	f->addr[2] = load_u64(l3 + IPV6_DADDR_OFF);
	f->addr[3] = load_u64(l3 + IPV6_DADDR_OFF + 8);
	nexthdr = ip6h->nexthdr;
	/* Most datagrams have no extension header: a protocol with ports
	 * (never an extension header) goes straight to the transport
	 * header, with no walk to set up.
	 */
	if (proto_has_ports(nexthdr))
		return parse_ipv6_transport(fr, pos, room, nexthdr, f, l4, reason);
	return parse_ipv6_ext(fr, pos, room, nexthdr, f, l4, reason);
}

/* The tag protocol identifiers of a VLAN stack: 802.1Q, 802.1AD, and the
 * two that switches used for outer tags before 802.1AD, which access
 * networks still carry.
 */
static __always_inline bool is_vlan_tpid(__be16 proto)
{
	return proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD) ||
	       proto == bpf_htons(ETH_P_QINQ1) || proto == bpf_htons(ETH_P_QINQ2);
}

/* The VLAN tags from `pos`, where *proto, a TPID, announced the first:
 * up to CPUSTEER_MAX_VLAN_TAGS of them, of any of the four TPIDs in any
 * order, are skipped; the tags themselves never reach the hash. Leaves
 * *l3 after the last tag and *proto at the EtherType there.
 */
static __always_inline enum parse_status parse_vlan_tags(const struct frame *fr, void *pos,
							 struct flow *f, void **l3, __be16 *proto,
							 __u32 *reason)
{
	int i;

#pragma unroll
	for (i = 0; i < CPUSTEER_MAX_VLAN_TAGS; i++) {
		if (past_dgram(fr, pos, VLAN_HDR_LEN))
			return parse_fail(reason, CPUSTEER_PASS_TRUNC_L2);
		if (pos + VLAN_HDR_LEN > fr->end)
			return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L2);
		f->notes |= FLOW_VLAN;	/* a tag seen whole, not one cut short */
		*proto = ((struct vlan_hdr *)pos)->h_vlan_encapsulated_proto;
		pos += VLAN_HDR_LEN;
		if (!is_vlan_tpid(*proto)) {
			*l3 = pos;
			return PARSE_FLOW;
		}
	}
	return parse_fail(reason, CPUSTEER_PASS_VLAN_DEPTH);
}

/* A PPPoE session header at `pos`, where *proto (ETH_P_PPP_SES) announced
 * it: a session frame of version 1, type 1 and code 0 carrying PPP's IPv4
 * or IPv6 leaves *proto at that EtherType and *l3 at the datagram; any
 * other (another PPP protocol, such as LCP or IPCP, or another header)
 * leaves *proto as it was, which is no IP: the caller passes it as
 * non_ip. The session header's Length is not read, as an Ethernet
 * frame's padding is not: the datagram's own lengths bound it.
 */
static __always_inline enum parse_status parse_pppoe(const struct frame *fr, void *pos,
						     struct flow *f, void **l3, __be16 *proto,
						     __u32 *reason)
{
	__u8 *h = pos;
	__be16 ppp;

	if (past_dgram(fr, pos, PPPOE_HDR_LEN))
		return parse_fail(reason, CPUSTEER_PASS_TRUNC_L2);
	if (pos + PPPOE_HDR_LEN > fr->end)
		return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L2);
	f->notes |= FLOW_PPPOE;
	if (h[0] != PPPOE_VER_TYPE || h[1] != 0)
		return PARSE_FLOW;
	ppp = *(__be16 *)(h + 6);
	if (ppp == bpf_htons(PPP_IP))
		*proto = bpf_htons(ETH_P_IP);
	else if (ppp == bpf_htons(PPP_IPV6))
		*proto = bpf_htons(ETH_P_IPV6);
	*l3 = pos + PPPOE_HDR_LEN;
	return PARSE_FLOW;
}

static __always_inline bool is_mpls(__be16 proto)
{
	return proto == bpf_htons(ETH_P_MPLS_UC) || proto == bpf_htons(ETH_P_MPLS_MC);
}

/* An MPLS label stack at `pos`, where *proto (is_mpls) announced it: the
 * entries are skipped up to the one with the bottom-of-stack bit, at
 * most CPUSTEER_MAX_MPLS_LABELS; the labels, entropy labels included,
 * never reach the hash. What follows has no type field: its first nibble
 * says IPv4 (4) or IPv6 (6), and anything else (a pseudowire control
 * word, an Ethernet frame, ...) is passed as mpls_payload.
 */
static __always_inline enum parse_status parse_mpls(const struct frame *fr, void *pos,
						    struct flow *f, void **l3, __be16 *proto,
						    __u32 *reason)
{
	__u8 bottom, version;
	__u64 off;
	int i;

#pragma unroll
	for (i = 0; i < CPUSTEER_MAX_MPLS_LABELS; i++) {
		if (past_dgram(fr, pos, MPLS_LSE_LEN))
			return parse_fail(reason, CPUSTEER_PASS_TRUNC_L2);
		if (pos + MPLS_LSE_LEN > fr->end)
			return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L2);
		f->notes |= FLOW_MPLS;
		bottom = ((__u8 *)pos)[MPLS_BOS_BYTE] & 1;
		pos += MPLS_LSE_LEN;
		if (!bottom)
			continue;
		/* The depth is a constant on each path the verifier walks,
		 * and eight paths, each with all that follows, exceed its
		 * budget. The offset read back as a difference of pointers is
		 * a bounded unknown, so the paths meet as one.
		 */
		off = frame_offset(fr, pos);
		if (off > MPLS_L3_OFF_MAX)
			return parse_fail(reason, CPUSTEER_PASS_MPLS_DEPTH);
		pos = fr->data + off;
		/* No byte below the stack: the network header is cut. */
		if (past_dgram(fr, pos, 1))
			return parse_fail(reason, CPUSTEER_PASS_TRUNC_L3);
		if (pos + 1 > fr->end)
			return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L3);
		version = *(__u8 *)pos >> 4;
		if (version == 4)
			*proto = bpf_htons(ETH_P_IP);
		else if (version == 6)
			*proto = bpf_htons(ETH_P_IPV6);
		else
			return parse_fail(reason, CPUSTEER_PASS_MPLS_PAYLOAD);
		*l3 = pos;
		return PARSE_FLOW;
	}
	return parse_fail(reason, CPUSTEER_PASS_MPLS_DEPTH);
}

/* The Ethernet header at `eth` alone: *proto is its EtherType, which can
 * be any 16-bit value (0x0000 too, an 802.3 length) and may announce VLAN
 * tags, and *l3 what follows it. Whether the parse failed is the status,
 * never the type.
 */
static __always_inline enum parse_status parse_ethernet_header(const struct frame *fr, void *eth,
								void **l3, __be16 *proto,
								__u32 *reason)
{
	if (past_dgram(fr, eth, ETH_HDR_LEN))
		return parse_fail(reason, CPUSTEER_PASS_TRUNC_L2);
	if (eth + ETH_HDR_LEN > fr->end)
		return cut_short(fr, reason, CPUSTEER_PASS_TRUNC_L2);
	*proto = ((struct ethhdr *)eth)->h_proto;
	*l3 = eth + ETH_HDR_LEN;
	return PARSE_FLOW;
}

/* The Ethernet header at `eth` (a tunnel's inner frame), its VLAN tags,
 * and a PPPoE session header or an MPLS label stack: *l3 at the network
 * header and *proto at its EtherType.
 */
static __always_inline enum parse_status parse_ethernet(const struct frame *fr, void *eth,
							struct flow *f, void **l3, __be16 *proto,
							__u32 *reason)
{
	if (parse_ethernet_header(fr, eth, l3, proto, reason) != PARSE_FLOW)
		return PARSE_FAILED;
	if (is_vlan_tpid(*proto) &&
	    parse_vlan_tags(fr, *l3, f, l3, proto, reason) != PARSE_FLOW)
		return PARSE_FAILED;
	if (*proto == bpf_htons(ETH_P_PPP_SES))
		return parse_pppoe(fr, *l3, f, l3, proto, reason);
	if (is_mpls(*proto))
		return parse_mpls(fr, *l3, f, l3, proto, reason);
	return PARSE_FLOW;
}

#endif /* CPUSTEER_PARSE_H */
