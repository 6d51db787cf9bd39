/* SPDX-License-Identifier: GPL-2.0 */
/* One level of decapsulation, for `--inner`: which enabled tunnel an outer
 * flow is, where its payload starts, and the inner flow parsed from there
 * by the same parser as an outer frame (VLAN tags, IP options, fragments,
 * extension headers), so a flow hashes alike bare and encapsulated.
 *
 * A frame that is not a tunnel of an enabled kind costs one load and a
 * branch when --inner is off, and when it is on a subtraction (where its
 * transport header is) and a few compares of the protocol and the UDP
 * destination port. A tunnel whose headers cannot be read whole is not a
 * reason to pass the frame: the caller steers it by its outer flow and
 * counts why.
 */
#ifndef CPUSTEER_TUNNEL_H
#define CPUSTEER_TUNNEL_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "cpusteer.h"
#include "parse.h"

#define ETH_P_TEB 0x6558	/* transparent Ethernet bridging: a whole frame */
#define UDP_HDR_LEN 8
#define VXLAN_HDR_LEN 8
#define VXLAN_FLAG_VNI 0x08	/* RFC 7348's I flag: must be set */
#define GENEVE_HDR_LEN 8
#define GENEVE_VERSION(b) ((b) >> 6)
#define GENEVE_OPT_WORDS(b) ((b) & 0x3f)	/* options, in 4-octet words */
#define GRE_HDR_LEN 4
/* The flags, by their first octet: each is read as a byte, whose bounds
 * every verifier knows (6.12's knows none of a byte-swapped 16-bit value,
 * and refused the ERSPAN header read at a length made from one).
 */
#define GRE_CSUM 0x80		/* checksum and reserved1: 4 octets */
#define GRE_KEY 0x20		/* RFC 2890: 4 octets */
#define GRE_SEQ 0x10		/* RFC 2890: 4 octets */
/* Routing (RFC 1701's bit 1) adds fields of its own length, and version 1
 * is PPTP's: neither is read. RFC 2784 has a receiver that does not
 * implement RFC 1701 refuse bits 4-5 too, but RFC 1701's strict source
 * route and recursion control change no field's place, and the stack's
 * GRE receive path (gre_parse_header) ignores them as it does bits 6-12:
 * so does this, and steers those frames by the flow the stack will see.
 */
#define GRE_UNREAD_FLAGS0 0x40	/* routing, in the first octet */
#define GRE_VERSION_BITS 0x07	/* the version, in the second */
/* ERSPAN rides in GRE, told apart by the GRE protocol. Type I has no
 * header of its own: the mirrored frame follows a GRE header without a
 * sequence number. Type II (0x88BE with one) has 8 octets of version 1;
 * type III (0x22EB) 12 of version 2, whose frame type (octet 10) must be
 * 0, Ethernet, and whose O bit (octet 11) adds an 8-octet platform
 * subheader.
 */
#define ETH_P_ERSPAN 0x88BE
#define ETH_P_ERSPAN3 0x22EB
#define ERSPAN_VERSION(b) ((b) >> 4)
#define ERSPAN2_VERSION 1
#define ERSPAN2_HDR_LEN 8
#define ERSPAN3_VERSION 2
#define ERSPAN3_HDR_LEN 12
#define ERSPAN3_FRAME_TYPE(b) (((b) >> 2) & 0x1f)
#define ERSPAN3_SUBHEADER 0x01
#define ERSPAN3_SUBHEADER_LEN 8
#define GRE_CARRIED ((1u << CPUSTEER_TUNNEL_GRE) | (1u << CPUSTEER_TUNNEL_ERSPAN))
/* GTP-U (3GPP TS 29.281) after the UDP header: 8 octets, version 1 in the
 * top three bits of the first and PT below them (1: GTP; 0 is GTP', not
 * read), the message type in the second, the TEID in the last four. Any
 * of the E, S and PN flags (the first octet's low three bits) adds 4
 * octets, the last of which names the first extension header when E is
 * set. An extension header gives its own length in 4-octet units in its
 * first octet and the next one's type in its last; type 0 ends the chain.
 * The Length field is not read: the outer datagram bounds the header and
 * the inner IP lengths the datagram, as a PPPoE session's Length is not.
 */
#define GTPU_HDR_LEN 8
#define GTPU_OPT_LEN 4
#define GTPU_VERSION_PT 0xf0	/* the bits of the first octet both sit in */
#define GTPU_V1_GTP 0x30	/* version 1, PT 1 */
#define GTPU_OPT_FLAGS 0x07	/* E, S, PN */
#define GTPU_EXT_FLAG 0x04	/* E */
#define GTPU_NEXT_EXT_OFF 11	/* the first extension header's type */
#define GTPU_TEID_OFF 4
#define GTPU_EXT_UNIT 4
#define GTPU_G_PDU 255		/* user data: the only message with a datagram */
#define GTPU_END_MARKER 254	/* a tunnel's last frame at a handover */

static __always_inline __u32 udp_tunnel_kind(const struct flow *f,
					     const struct cpusteer_config *cfg)
{
	__be16 dport = f->ports >> 16;
	__u32 i;

	/* The port's low six bits are the low bits of its second wire byte. */
	if (!((cfg->udp_tunnel_filter >> ((dport >> 8) & 63)) & 1))
		return CPUSTEER_TUNNELS;
#pragma unroll
	for (i = 0; i < CPUSTEER_MAX_UDP_TUNNEL_PORTS; i++) {
		if (i >= cfg->udp_tunnel_ports)
			break;
		if (cfg->udp_tunnel_port[i] == dport)
			return cfg->udp_tunnel_kind[i];
	}
	return CPUSTEER_TUNNELS;
}

/* The enabled tunnel kind of a parsed outer flow, or CPUSTEER_TUNNELS.
 * A UDP fragment has no ports, so no UDP tunnel is recognised in one; a
 * fragment of the IP-protocol tunnels is, and falls back to its outer
 * flow (all its fragments share it).
 */
static __always_inline __u32 tunnel_kind(const struct flow *f, const struct cpusteer_config *cfg)
{
	__u32 kind;

	if (f->proto == IPPROTO_UDP)
		return udp_tunnel_kind(f, cfg);
	/* GRE or ERSPAN: the GRE header says which (gre_kind). */
	if (f->proto == IPPROTO_GRE)
		return cfg->inner & GRE_CARRIED ? CPUSTEER_TUNNEL_GRE : CPUSTEER_TUNNELS;
	if (f->proto == IPPROTO_IPIP)
		kind = CPUSTEER_TUNNEL_IPIP;
	else if (f->proto == IPPROTO_IPV6)
		kind = CPUSTEER_TUNNEL_SIT;
	else
		return CPUSTEER_TUNNELS;
	return cfg->inner & (1u << kind) ? kind : CPUSTEER_TUNNELS;
}

/* A tunnel in the frame, as the outer parse found it, and the flow to
 * steer it by, as parse_tunnel finds that. Offsets are from the frame's
 * start.
 */
struct tunnel_at {
	struct flow outer;
	struct flow flow;	/* parse_tunnel's: the inner flow, as far as it
				 * was read, from zero; or when it cannot be
				 * read, the outer one; GTP-U by tunnel, the
				 * outer one with the TEID for ports */
	__u32 kind;		/* enum cpusteer_tunnel; parse_tunnel may make
				 * GRE ERSPAN, or no tunnel (CPUSTEER_TUNNELS) */
	__u32 inner;		/* the config's: the kinds enabled */
	__u32 l4_off;		/* the outer transport header */
	__u32 dgram_end;	/* where the outer datagram ends: the payload's end */
	__u32 why;		/* parse_tunnel's: CPUSTEER_INNER_FALLBACKS, or
				 * why `flow` is the outer one */
};

/* What a tunnel carries: where it starts, and its EtherType (ETH_P_TEB:
 * an Ethernet frame).
 */
struct tunnel_payload {
	__u32 off;
	__be16 proto;
	__be32 teid;	/* GTP-U by tunnel: the TEID, the payload unread */
};

/* Far beyond any offset a parse reaches before the inner IP header
 * (Ethernet, four tags, IPv6 and eight extension headers of 2 KiB, a
 * GENEVE header with all its options), and small enough that an inner
 * parse from there stays within the verifier's 64 KiB of packet offsets.
 */
#define TUNNEL_OFF_MAX 0x8000

/* The tunnel header after the UDP header: VXLAN carries an Ethernet frame,
 * GENEVE names what it carries and may have options before it.
 */
static __always_inline __u32 udp_tunnel_payload(const struct frame *fr, const struct l4_span *l4,
						__u32 kind, struct tunnel_payload *p)
{
	void *hdr = l4->start + UDP_HDR_LEN;
	__u32 len = VXLAN_HDR_LEN;	/* GENEVE's fixed part alike */
	__u8 first;

	if (l4->room < UDP_HDR_LEN + len || hdr + len > fr->end)
		return CPUSTEER_INNER_TRUNCATED;
	first = *(__u8 *)hdr;
	if (kind == CPUSTEER_TUNNEL_VXLAN) {
		if (!(first & VXLAN_FLAG_VNI))
			return CPUSTEER_INNER_UNSUPPORTED;
		p->proto = bpf_htons(ETH_P_TEB);
	} else {
		if (GENEVE_VERSION(first))
			return CPUSTEER_INNER_UNSUPPORTED;
		len += GENEVE_OPT_WORDS(first) * 4;
		if (l4->room < UDP_HDR_LEN + len)
			return CPUSTEER_INNER_TRUNCATED;
		p->proto = *(__be16 *)(hdr + 2);
	}
	p->off = hdr + len - fr->data;
	return CPUSTEER_INNER_FALLBACKS;
}

/* The GTP-U extension header chain from `*pos`, within `*room` octets:
 * leaves both after it. Only the lengths and the last next type, 0, are
 * read; what the headers are does not change where the datagram starts.
 */
static __always_inline __u32 gtpu_ext_headers(const struct frame *fr, void **pos, __u64 *room)
{
	void *at = *pos, *last;
	__u64 left = *room, len;
	__u8 next;
	int i;

#pragma unroll
	for (i = 0; i < CPUSTEER_MAX_GTPU_EXT_HEADERS; i++) {
		if (left < 1 || at + 1 > fr->end)
			return CPUSTEER_INNER_TRUNCATED;
		len = *(__u8 *)at * GTPU_EXT_UNIT;
		if (!len)
			return CPUSTEER_INNER_MALFORMED;
		/* The last octet is checked as a pointer of its own: read
		 * at offset -1 from a checked end, as clang may emit it, the
		 * verifier refuses it.
		 */
		last = at + len - 1;
		if (left < len || last + 1 > fr->end)
			return CPUSTEER_INNER_TRUNCATED;
		next = *(__u8 *)last;
		at += len;
		left -= len;
		if (!next) {
			*pos = at;
			*room = left;
			return CPUSTEER_INNER_FALLBACKS;
		}
	}
	return CPUSTEER_INNER_UNSUPPORTED;
}

/* A GTP-U message after the UDP header. By tunnel, a G-PDU or an End
 * Marker is its TEID, which the caller hashes with the outer addresses:
 * the End Marker goes where its tunnel's G-PDUs went, after them. By the
 * inner flow, a G-PDU's extension headers are walked to the datagram,
 * whose first nibble says IPv4 or IPv6, as below MPLS labels. Every other
 * message carries no user frame and goes by the outer flow.
 */
static __always_inline __u32 gtpu_payload(const struct frame *fr, const struct l4_span *l4,
					  __u32 kind, struct tunnel_payload *p)
{
	void *hdr = l4->start + UDP_HDR_LEN, *pos;
	__u8 *b = hdr, version;
	__u64 room, off;
	__u32 why;

	if (l4->room < UDP_HDR_LEN + GTPU_HDR_LEN || hdr + GTPU_HDR_LEN > fr->end)
		return CPUSTEER_INNER_TRUNCATED;
	if ((b[0] & GTPU_VERSION_PT) != GTPU_V1_GTP)
		return CPUSTEER_INNER_UNSUPPORTED;
	if (kind == CPUSTEER_TUNNEL_GTPU_TEID) {
		if (b[1] != GTPU_G_PDU && b[1] != GTPU_END_MARKER)
			return CPUSTEER_INNER_SIGNALLING;
		p->teid = load_u32(hdr + GTPU_TEID_OFF);
		return CPUSTEER_INNER_FALLBACKS;
	}
	if (b[1] != GTPU_G_PDU)
		return CPUSTEER_INNER_SIGNALLING;
	pos = hdr + GTPU_HDR_LEN;
	room = l4->room - UDP_HDR_LEN - GTPU_HDR_LEN;
	if (b[0] & GTPU_OPT_FLAGS) {
		if (room < GTPU_OPT_LEN || pos + GTPU_OPT_LEN > fr->end)
			return CPUSTEER_INNER_TRUNCATED;
		pos += GTPU_OPT_LEN;
		room -= GTPU_OPT_LEN;
		if ((b[0] & GTPU_EXT_FLAG) && b[GTPU_NEXT_EXT_OFF]) {
			why = gtpu_ext_headers(fr, &pos, &room);
			if (why != CPUSTEER_INNER_FALLBACKS)
				return why;
		}
	}
	/* Each length of the walk is a path of its own for the verifier; an
	 * offset read back as a difference of pointers makes them one, as
	 * below MPLS labels.
	 */
	off = frame_offset(fr, pos);
	if (off > TUNNEL_OFF_MAX)
		return CPUSTEER_INNER_TRUNCATED;
	pos = fr->data + off;
	if (!room || pos + 1 > fr->end)
		return CPUSTEER_INNER_TRUNCATED;
	version = *(__u8 *)pos >> 4;
	if (version == 4)
		p->proto = bpf_htons(ETH_P_IP);
	else if (version == 6)
		p->proto = bpf_htons(ETH_P_IPV6);
	else
		return CPUSTEER_INNER_UNSUPPORTED;
	p->off = off;
	return CPUSTEER_INNER_FALLBACKS;
}

/* Which enabled kind protocol 47 is: ERSPAN for its protocols where
 * --inner names erspan, GRE where it names gre, else none to look into.
 */
static __always_inline __u32 gre_kind(__be16 proto, __u32 inner)
{
	if ((proto == bpf_htons(ETH_P_ERSPAN) || proto == bpf_htons(ETH_P_ERSPAN3)) &&
	    inner & (1u << CPUSTEER_TUNNEL_ERSPAN))
		return CPUSTEER_TUNNEL_ERSPAN;
	return inner & (1u << CPUSTEER_TUNNEL_GRE) ? CPUSTEER_TUNNEL_GRE : CPUSTEER_TUNNELS;
}

/* The ERSPAN header after a GRE header of `gre_len` octets; the mirrored
 * frame is Ethernet after it.
 */
static __always_inline __u32 erspan_payload(const struct frame *fr, const struct l4_span *l4,
					    __u32 gre_len, __u8 flags, __be16 proto,
					    struct tunnel_payload *p)
{
	void *hdr = l4->start + gre_len;
	__u32 len = 0;
	__u8 *b = hdr;

	if (proto == bpf_htons(ETH_P_ERSPAN3)) {
		if (l4->room < gre_len + ERSPAN3_HDR_LEN || hdr + ERSPAN3_HDR_LEN > fr->end)
			return CPUSTEER_INNER_TRUNCATED;
		if (ERSPAN_VERSION(b[0]) != ERSPAN3_VERSION || ERSPAN3_FRAME_TYPE(b[10]))
			return CPUSTEER_INNER_UNSUPPORTED;
		len = ERSPAN3_HDR_LEN + (b[11] & ERSPAN3_SUBHEADER) * ERSPAN3_SUBHEADER_LEN;
	} else if (flags & GRE_SEQ) {
		if (l4->room < gre_len + ERSPAN2_HDR_LEN || hdr + ERSPAN2_HDR_LEN > fr->end)
			return CPUSTEER_INNER_TRUNCATED;
		if (ERSPAN_VERSION(b[0]) != ERSPAN2_VERSION)
			return CPUSTEER_INNER_UNSUPPORTED;
		len = ERSPAN2_HDR_LEN;
	}
	if (l4->room < gre_len + len)
		return CPUSTEER_INNER_TRUNCATED;
	p->proto = bpf_htons(ETH_P_TEB);
	p->off = hdr + len - fr->data;
	return CPUSTEER_INNER_FALLBACKS;
}

/* The optional fields are summed without branches: each flag adds four
 * octets, so the verifier sees one length in a range, not eight. The
 * protocol is read first: it decides the kind (`kind`, GRE on entry),
 * and none but an enabled kind's flags are judged.
 */
static __always_inline __u32 gre_payload(const struct frame *fr, const struct l4_span *l4,
					 __u32 inner, __u32 *kind, struct tunnel_payload *p)
{
	void *hdr = l4->start;
	__be16 proto;
	__u8 flags;
	__u32 len;

	if (l4->room < GRE_HDR_LEN || hdr + GRE_HDR_LEN > fr->end)
		return CPUSTEER_INNER_TRUNCATED;
	flags = *(__u8 *)hdr;
	proto = *(__be16 *)(hdr + 2);
	*kind = gre_kind(proto, inner);
	if (*kind == CPUSTEER_TUNNELS)
		return CPUSTEER_INNER_UNSUPPORTED;	/* not looked into at all */
	if ((flags & GRE_UNREAD_FLAGS0) || (((__u8 *)hdr)[1] & GRE_VERSION_BITS))
		return CPUSTEER_INNER_UNSUPPORTED;
	len = GRE_HDR_LEN + 4 * (!!(flags & GRE_CSUM) + !!(flags & GRE_KEY) +
				 !!(flags & GRE_SEQ));
	if (l4->room < len)
		return CPUSTEER_INNER_TRUNCATED;
	if (*kind == CPUSTEER_TUNNEL_ERSPAN)
		return erspan_payload(fr, l4, len, flags, proto, p);
	p->proto = proto;
	p->off = hdr + len - fr->data;
	return CPUSTEER_INNER_FALLBACKS;
}

/* Where the payload of a tunnel of `*kind` starts and what it is, from
 * its outer transport header; a GRE header may make `*kind` ERSPAN, or
 * none (gre_payload). Returns CPUSTEER_INNER_FALLBACKS, or why the
 * tunnel header cannot be read.
 */
static __always_inline __u32 tunnel_payload(const struct frame *fr, const struct l4_span *l4,
					    __u32 inner, __u32 *kind, struct tunnel_payload *p)
{
	if (*kind == CPUSTEER_TUNNEL_VXLAN || *kind == CPUSTEER_TUNNEL_GENEVE)
		return udp_tunnel_payload(fr, l4, *kind, p);
	if (*kind == CPUSTEER_TUNNEL_GRE)
		return gre_payload(fr, l4, inner, kind, p);
	if (*kind == CPUSTEER_TUNNEL_GTPU || *kind == CPUSTEER_TUNNEL_GTPU_TEID)
		return gtpu_payload(fr, l4, *kind, p);
	p->off = l4->start - fr->data;
	p->proto = bpf_htons(*kind == CPUSTEER_TUNNEL_IPIP ? ETH_P_IP : ETH_P_IPV6);
	return CPUSTEER_INNER_FALLBACKS;
}

/* What an inner frame's parse failure means for the fallback count: a
 * header cut short is truncated; a limit of this parser (a fifth tag, a
 * label stack or an extension header chain longer than it walks) or no
 * IP below the labels, unsupported; a header or length field at odds
 * with the datagram, malformed.
 */
static __always_inline __u32 inner_fallback_of(__u32 reason, const struct flow *in)
{
	switch (reason) {
	case CPUSTEER_PASS_TRUNC_L2:
	case CPUSTEER_PASS_TRUNC_L3:
	case CPUSTEER_PASS_TRUNC_L4:
	case CPUSTEER_PASS_HEADERS_IN_FRAGS:
		return CPUSTEER_INNER_TRUNCATED;
	case CPUSTEER_PASS_VLAN_DEPTH:
	case CPUSTEER_PASS_MPLS_DEPTH:
	case CPUSTEER_PASS_MPLS_PAYLOAD:
		return CPUSTEER_INNER_UNSUPPORTED;
	case CPUSTEER_PASS_EXT_HDRS:
		return in->notes & FLOW_EXT_LIMIT ? CPUSTEER_INNER_UNSUPPORTED
						  : CPUSTEER_INNER_MALFORMED;
	default:
		return CPUSTEER_INNER_MALFORMED;
	}
}

/* The flow a tunnel carries, from the payload tunnel_payload found, in
 * a frame that ends with the outer datagram (tunnel_frame_of). One level
 * only: a tunnel inside the tunnel is steered as the inner flow it is, by
 * its own outer header. Returns CPUSTEER_INNER_FALLBACKS, or why the
 * outer flow must do.
 */
static __always_inline __u32 parse_inner(const struct frame *fr, __u32 payload_off,
					 __be16 proto, struct flow *in)
{
	struct l4_span inner_l4;
	enum parse_status st;
	__u32 reason = 0;
	void *l3;

	if (payload_off > TUNNEL_OFF_MAX)
		return CPUSTEER_INNER_TRUNCATED;
	l3 = fr->data + payload_off;
	if (proto == bpf_htons(ETH_P_TEB) &&
	    parse_ethernet(fr, l3, in, &l3, &proto, &reason) != PARSE_FLOW)
		return inner_fallback_of(reason, in);
	if (proto == bpf_htons(ETH_P_IP))
		st = parse_ipv4(fr, l3, in, &inner_l4, &reason);
	else if (proto == bpf_htons(ETH_P_IPV6))
		st = parse_ipv6(fr, l3, in, &inner_l4, &reason);
	else
		return CPUSTEER_INNER_UNSUPPORTED;
	return st == PARSE_FLOW ? CPUSTEER_INNER_FALLBACKS : inner_fallback_of(reason, in);
}

/* Sets at->flow and at->why from the tunnel the outer parse found, a
 * fragment of it included; the caller zeroes at->flow. GTP-U by tunnel
 * reads no inner frame: its flow is the outer one with the TEID.
 *
 * Global: the verifier checks it once, with offsets it knows nothing of.
 * Inlined, the inner parse would be explored again for every path of the
 * outer parse (tags, options, extension headers) that reaches it. It
 * returns nothing, because a returned 32-bit value is widened in a
 * register of its own, and the verifier would not know the one used as an
 * index to be the one checked.
 */
__noinline int parse_tunnel(struct xdp_md *ctx, struct tunnel_at *at)
{
	struct frame fr = frame_of(ctx);
	struct tunnel_payload payload;
	struct l4_span l4;
	__u32 why;

	if (!at)
		return 0;	/* cannot happen: the caller's */
	if (at->outer.notes & FLOW_FRAGMENT) {
		why = CPUSTEER_INNER_OUTER_FRAGMENT;
	} else if (at->l4_off > TUNNEL_OFF_MAX) {
		why = CPUSTEER_INNER_TRUNCATED;	/* cannot happen: parsed before */
	} else {
		l4.start = fr.data + at->l4_off;
		l4.room = at->dgram_end - at->l4_off;
		why = tunnel_payload(&fr, &l4, at->inner, &at->kind, &payload);
	}
	if (why == CPUSTEER_INNER_FALLBACKS) {
		if (at->kind == CPUSTEER_TUNNEL_GTPU_TEID) {
			/* By tunnel: the TEID takes the ports' place in the
			 * message. Copied field by field: as one struct copy
			 * and then the TEID, the same frame ran at 2.40 times
			 * the no-touch redirect instead of 1.84 (bench
			 * --program, gtpu_by_teid).
			 */
			at->flow.addr[0] = at->outer.addr[0];
			at->flow.addr[1] = at->outer.addr[1];
			at->flow.addr[2] = at->outer.addr[2];
			at->flow.addr[3] = at->outer.addr[3];
			at->flow.ports = payload.teid;
			at->flow.proto = at->outer.proto;
			at->flow.family = at->outer.family;
			at->flow.notes = at->outer.notes;
		} else {
			fr = tunnel_frame_of(ctx, at->dgram_end);
			why = parse_inner(&fr, payload.off, payload.proto, &at->flow);
		}
	}
	if (why != CPUSTEER_INNER_FALLBACKS)
		at->flow = at->outer;
	at->why = why;
	return 0;
}

#endif /* CPUSTEER_TUNNEL_H */
