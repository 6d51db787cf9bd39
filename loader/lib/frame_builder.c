// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <string.h>
#include <netinet/in.h>
#include "cpusteer.h"
#include "frame_builder.h"

#define ETH_HLEN 14
#define TUNNEL_HDR_MAX (8 + 8 + 63 * 4)	/* GENEVE with every option word */
#define INNER_FRAME_MAX 1024

void pkt_set_addr4(__u8 *addr, __u32 host_order)
{
	__u32 be = htonl(host_order);

	memset(addr, 0, 16);
	memcpy(addr, &be, 4);
}

void pkt_spec_init(struct pkt_spec *s, int family, __u8 proto)
{
	static const __u8 dst[6] = { 0x02, 0, 0, 0, 0, 2 };
	static const __u8 src[6] = { 0x02, 0, 0, 0, 0, 1 };

	memset(s, 0, sizeof(*s));
	memcpy(s->dst_mac, dst, 6);
	memcpy(s->src_mac, src, 6);
	s->family = family;
	s->proto = proto;
	s->sport = 1000;
	s->dport = 2000;
	s->ttl = 64;
	s->payload_len = 18;
	if (family == 6) {
		inet_pton(AF_INET6, "fd00::1", s->saddr);
		inet_pton(AF_INET6, "fd00::2", s->daddr);
	} else {
		pkt_set_addr4(s->saddr, 0x0a000001);
		pkt_set_addr4(s->daddr, 0x0a000002);
	}
}

static __u32 csum_add(__u32 sum, const void *data, size_t len)
{
	const __u8 *p = data;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static __u16 csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

static void put16(__u8 *p, __u16 host)
{
	p[0] = host >> 8;
	p[1] = host & 0xff;
}

static void put32(__u8 *p, __u32 host)
{
	put16(p, host >> 16);
	put16(p + 2, host & 0xffff);
}

static bool has_ports(__u8 proto)
{
	return proto == IPPROTO_UDP || proto == IPPROTO_TCP || proto == IPPROTO_SCTP;
}

static size_t l4_header_len(__u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 20;
	case IPPROTO_UDP:
		return 8;
	case IPPROTO_SCTP:
		return 12;
	default:
		return 0;
	}
}

/* Writes the L4 header and payload; returns their length. The checksum is
 * filled in later, once the pseudo-header is known.
 */
static size_t write_l4(const struct pkt_spec *s, __u8 *p, bool with_header)
{
	size_t hlen = with_header ? l4_header_len(s->proto) : 0, i;

	memset(p, 0, hlen);
	if (hlen) {
		put16(p, s->sport);
		put16(p + 2, s->dport);
	}
	if (with_header && s->proto == IPPROTO_UDP)
		put16(p + 4, hlen + s->payload_len);
	if (with_header && s->proto == IPPROTO_TCP) {
		p[12] = 5 << 4;		/* data offset */
		p[13] = 0x10;		/* ACK */
		put16(p + 14, 65535);	/* window */
	}
	for (i = 0; i < s->payload_len; i++)
		p[hlen + i] = s->payload ? s->payload[i] : (__u8)i;
	return hlen + s->payload_len;
}

static void fill_l4_csum(const struct pkt_spec *s, __u8 *l4, size_t len, __u8 proto)
{
	__u8 off = proto == IPPROTO_UDP ? 6 : 16;
	size_t alen = s->family == 6 ? 16 : 4;
	__u32 sum = 0;
	__u16 c;

	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		return;
	sum = csum_add(sum, s->saddr, alen);
	sum = csum_add(sum, s->daddr, alen);
	sum += proto + (len & 0xffff) + (len >> 16);
	sum = csum_add(sum, l4, len);
	c = csum_fold(sum);
	if (proto == IPPROTO_UDP && !c)
		c = 0xffff;
	memcpy(l4 + off, &c, 2);
}

static size_t write_ipv4(const struct pkt_spec *s, __u8 *p, bool l4_header)
{
	size_t hlen = 20 + s->ipv4_options_len, l4len;
	__u16 frag = (s->more_fragments ? 0x2000 : 0) | (s->frag_offset & 0x1fff);
	__u16 c;

	memset(p, 0, hlen);
	p[0] = 0x40 | (hlen / 4);
	p[1] = s->tos;
	put16(p + 4, s->ip_id);
	put16(p + 6, frag);
	p[8] = s->ttl;
	p[9] = s->proto;
	memcpy(p + 12, s->saddr, 4);
	memcpy(p + 16, s->daddr, 4);
	/* Options: NOPs ending in End of Options, as valid as any. */
	memset(p + 20, 1, s->ipv4_options_len);
	if (s->ipv4_options_len)
		p[hlen - 1] = 0;
	l4len = write_l4(s, p + hlen, l4_header);
	put16(p + 2, hlen + l4len);
	c = csum_fold(csum_add(0, p, hlen));
	memcpy(p + 10, &c, 2);
	if (l4_header && !s->fragment)
		fill_l4_csum(s, p + hlen, l4len, s->proto);
	return hlen + l4len;
}

static size_t write_ipv6(const struct pkt_spec *s, __u8 *p, bool l4_header)
{
	__u8 *nexthdr = p + 6, *q = p + 40;
	size_t l4len;
	int i;

	memset(p, 0, 40);
	put32(p, (6u << 28) | ((__u32)s->tos << 20) | (s->flow_label & 0xfffff));
	p[7] = s->ttl;
	memcpy(p + 8, s->saddr, 16);
	memcpy(p + 24, s->daddr, 16);
	for (i = 0; i < s->next; i++) {
		/* Eight octets each: next header, length 0, six of padding
		 * (a PadN option for hop-by-hop and destination options).
		 */
		*nexthdr = s->ext[i];
		memset(q, 0, 8);
		if (s->ext[i] != 43) {
			q[2] = 1;
			q[3] = 4;
		}
		nexthdr = q;
		q += 8;
	}
	if (s->fragment) {
		*nexthdr = 44;
		memset(q, 0, 8);
		put16(q + 2, (s->frag_offset << 3) | (s->more_fragments ? 1 : 0));
		put32(q + 4, s->frag_id);
		nexthdr = q;
		q += 8;
	}
	*nexthdr = s->proto;
	l4len = write_l4(s, q, l4_header);
	if (l4_header && !s->fragment)
		fill_l4_csum(s, q, l4len, s->proto);
	put16(p + 4, (q - p - 40) + l4len);
	return (q - p) + l4len;
}

/* The PPPoE session header (RFC 2516) and the PPP protocol field before
 * a datagram of `dgram_len` bytes.
 */
static void write_pppoe(const struct pkt_spec *s, __u8 *p, size_t dgram_len)
{
	__u16 ppp = s->ppp_proto ? s->ppp_proto : s->family == 6 ? 0x0057 : 0x0021;

	p[0] = 0x11;	/* version 1, type 1 */
	p[1] = 0;	/* code: session data */
	put16(p + 2, s->pppoe_session);
	put16(p + 4, dgram_len + 2);
	put16(p + 6, ppp);
}

size_t pkt_build(const struct pkt_spec *s, __u8 *buf, size_t cap)
{
	size_t l3 = pkt_l3_offset(s), need = l3 + 60 + 8 * (PKT_MAX_EXT + 1) + 20 + s->payload_len,
	       off = 12, len;
	bool l4_header = has_ports(s->proto) && !(s->fragment && s->frag_offset);
	__u16 ethertype;
	int i;

	if (cap < need)
		return 0;
	memcpy(buf, s->dst_mac, 6);
	memcpy(buf + 6, s->src_mac, 6);
	for (i = 0; i < s->nvlan; i++, off += 4) {
		put16(buf + off, s->vlan_tpid[i]);
		put16(buf + off + 2, s->vlan_tci[i]);
	}
	ethertype = s->family == 4 ? 0x0800 : s->family == 6 ? 0x86dd : s->ethertype;
	put16(buf + off, s->pppoe ? 0x8864 : s->nmpls ? 0x8847 : ethertype);
	for (i = 0; i < s->nmpls; i++)
		put32(buf + off + 2 + 4 * i, s->mpls_label[i] << 12 |
					     (i == s->nmpls - 1 ? 0x100 : 0) | 64);
	if (s->family == 4) {
		len = write_ipv4(s, buf + l3, l4_header);
	} else if (s->family == 6) {
		len = write_ipv6(s, buf + l3, l4_header);
	} else {
		len = 46;
		memset(buf + l3, 0, len);
	}
	if (s->pppoe)
		write_pppoe(s, buf + off + 2, len);
	return l3 + len;
}

size_t pkt_l3_offset(const struct pkt_spec *s)
{
	return ETH_HLEN + 4 * s->nvlan + (s->pppoe ? PKT_PPPOE_LEN : 0) + 4 * s->nmpls;
}

void pkt_set_ip_length(const struct pkt_spec *s, __u8 *frame, size_t dgram_len)
{
	__u8 *ip = frame + pkt_l3_offset(s);
	__u16 c;

	if (s->family == 6) {
		put16(ip + 4, dgram_len - 40);
		return;
	}
	put16(ip + 2, dgram_len);
	memset(ip + 10, 0, 2);
	c = csum_fold(csum_add(0, ip, (ip[0] & 0xf) * 4));
	memcpy(ip + 10, &c, 2);
}

/* A GRE header with the fields `flags` names; returns its length. */
static size_t write_gre_header(__u16 flags, __u16 payload_type, __u32 key, __u8 *p)
{
	size_t len = 4;

	put16(p, flags);
	put16(p + 2, payload_type);
	if (flags & 0x8000) {
		put32(p + len, 0);	/* checksum and reserved1 */
		len += 4;
	}
	if (flags & 0x2000) {
		put32(p + len, key);
		len += 4;
	}
	if (flags & 0x1000) {
		put32(p + len, 1);
		len += 4;
	}
	return len;
}

/* ERSPAN's GRE header and its own: type II's 8 octets (version 1, the
 * session ID, index 0) or type III's 12 (version 2, the session ID, frame
 * type 0: Ethernet), with the O bit a platform subheader of 8 more.
 */
static size_t write_erspan_header(const struct pkt_encap *e, __u8 *p)
{
	int type = e->erspan_type ? e->erspan_type : 2;
	__u16 seq = type == 1 ? 0 : 0x1000;
	size_t len = write_gre_header((e->gre_flags & ~0x1000) | seq,
				      type == 3 ? 0x22eb : 0x88be, 0, p);
	size_t hlen = type == 1 ? 0 : type == 2 ? 8 : 12 + 8 * e->erspan_subheader;

	memset(p + len, 0, hlen);
	if (type == 1)
		return len;
	put16(p + len, (type == 2 ? 0x1000 : 0x2000) | 0x0005);	/* version, VLAN 5 */
	put16(p + len + 2, e->vni & 0x3ff);
	if (type == 3)
		p[len + 11] = e->erspan_subheader;
	return len + hlen;
}

/* GTP-U's header (version 1, PT 1) and its extension headers, each a
 * PDU session container (type 0x85) of 4 or 8 octets in turn; its Length
 * is written when the payload is there (pkt_build_tunnel).
 */
static size_t write_gtpu_header(const struct pkt_encap *e, __u8 *p)
{
	__u8 flags = (e->gtpu_flags & 0x03) | (e->gtpu_ext ? 0x04 : 0);
	size_t len = 8, ext_len;
	int i;

	p[0] = 0x30 | flags;
	p[1] = e->gtpu_type ? e->gtpu_type : 255;
	put16(p + 2, 0);
	put32(p + 4, e->vni);
	if (!flags)
		return len;
	put32(p + len, 0x00070000);	/* sequence 7, N-PDU 0, next type 0 */
	len += 4;
	if (e->gtpu_ext)
		p[len - 1] = 0x85;
	for (i = 0; i < e->gtpu_ext; i++) {
		ext_len = i % 2 ? 8 : 4;
		memset(p + len, 0, ext_len);
		p[len] = ext_len / 4;
		p[len + 1] = 0x10;		/* PDU type 1 (uplink) */
		p[len + ext_len - 1] = i + 1 < e->gtpu_ext ? 0x85 : 0;
		len += ext_len;
	}
	return len;
}

static bool is_gtpu(int kind)
{
	return kind == CPUSTEER_TUNNEL_GTPU || kind == CPUSTEER_TUNNEL_GTPU_TEID;
}

/* The tunnel header in front of the payload; returns its length. */
static size_t write_tunnel_header(const struct pkt_encap *e, __u16 payload_type, __u8 *p)
{
	int i;

	switch (e->kind) {
	case CPUSTEER_TUNNEL_VXLAN:
		memset(p, 0, 8);
		p[0] = 0x08;			/* I: the VNI is valid */
		put32(p + 4, e->vni << 8);
		return 8;
	case CPUSTEER_TUNNEL_GENEVE:
		memset(p, 0, 8 + 4 * e->geneve_opt_words);
		p[0] = e->geneve_opt_words & 0x3f;
		put16(p + 2, payload_type);
		put32(p + 4, e->vni << 8);
		/* One option filling the words: class, type, length. */
		if (e->geneve_opt_words) {
			put16(p + 8, 0x0101);
			p[10] = 0x01;
			p[11] = (e->geneve_opt_words - 1) & 0x1f;
			for (i = 12; i < 8 + 4 * e->geneve_opt_words; i++)
				p[i] = (__u8)i;
		}
		return 8 + 4 * e->geneve_opt_words;
	case CPUSTEER_TUNNEL_GRE:
		return write_gre_header(e->gre_flags, payload_type, e->vni, p);
	case CPUSTEER_TUNNEL_ERSPAN:
		return write_erspan_header(e, p);
	case CPUSTEER_TUNNEL_GTPU:
	case CPUSTEER_TUNNEL_GTPU_TEID:
		return write_gtpu_header(e, p);
	default:
		return 0;	/* IPIP and SIT: the datagram follows at once */
	}
}

static __u8 tunnel_proto(int kind)
{
	switch (kind) {
	case CPUSTEER_TUNNEL_VXLAN:
	case CPUSTEER_TUNNEL_GENEVE:
	case CPUSTEER_TUNNEL_GTPU:
	case CPUSTEER_TUNNEL_GTPU_TEID:
		return IPPROTO_UDP;
	case CPUSTEER_TUNNEL_GRE:
	case CPUSTEER_TUNNEL_ERSPAN:
		return IPPROTO_GRE;
	case CPUSTEER_TUNNEL_IPIP:
		return IPPROTO_IPIP;
	default:
		return IPPROTO_IPV6;
	}
}

size_t pkt_build_tunnel(const struct pkt_spec *outer, const struct pkt_encap *e,
			const struct pkt_spec *inner, __u8 *buf, size_t cap)
{
	__u8 frame[INNER_FRAME_MAX], payload[TUNNEL_HDR_MAX + INNER_FRAME_MAX];
	bool ethernet = e->kind == CPUSTEER_TUNNEL_VXLAN || e->kind == CPUSTEER_TUNNEL_ERSPAN ||
			(e->ethernet && e->kind != CPUSTEER_TUNNEL_IPIP &&
			 e->kind != CPUSTEER_TUNNEL_SIT && !is_gtpu(e->kind));
	size_t len = pkt_build(inner, frame, sizeof(frame)), skip, hlen;
	struct pkt_spec o = *outer;

	if (!len)
		return 0;
	skip = ethernet ? 0 : pkt_l3_offset(inner);
	hlen = write_tunnel_header(e, ethernet ? 0x6558 : inner->family == 6 ? 0x86dd : 0x0800,
				   payload);
	memcpy(payload + hlen, frame + skip, len - skip);
	if (is_gtpu(e->kind))	/* GTP-U's Length: all after its first 8 octets */
		put16(payload + 2, hlen - 8 + len - skip);
	o.proto = tunnel_proto(e->kind);
	o.payload = payload;
	o.payload_len = hlen + len - skip;
	return pkt_build(&o, buf, cap);
}
