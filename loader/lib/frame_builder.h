/* SPDX-License-Identifier: GPL-2.0 */
/* Builds test and benchmark frames: Ethernet with VLAN tags, IPv4 with
 * options or IPv6 with extension headers, fragments, and UDP, TCP or SCTP,
 * with valid IPv4, UDP and TCP checksums, optionally in a PPPoE session; and such a frame inside a
 * VXLAN, GENEVE, GRE, IPIP, SIT, ERSPAN or GTP-U tunnel.
 */
#ifndef CPUSTEER_FRAME_BUILDER_H
#define CPUSTEER_FRAME_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "cpusteer.h"

#define PKT_MAX_VLANS (CPUSTEER_MAX_VLAN_TAGS + 1)	/* one more than the program accepts */
#define PKT_MAX_EXT 10		/* two more than the program walks */
#define PKT_PPPOE_LEN 8		/* PPPoE session header and PPP protocol */
#define PKT_MAX_MPLS (CPUSTEER_MAX_MPLS_LABELS + 1)	/* one more than the program walks */

struct pkt_spec {
	__u8 dst_mac[6], src_mac[6];
	__u16 vlan_tpid[PKT_MAX_VLANS];	/* outermost first; 0x8100, 0x88a8, 0x9100 or 0x9200 */
	__u16 vlan_tci[PKT_MAX_VLANS];
	int nvlan;
	/* A PPPoE session header after the tags: its session ID, and the PPP
	 * protocol it carries, 0 for IPv4's (0x0021) or IPv6's (0x0057) by
	 * family. Its Length covers what follows it.
	 */
	bool pppoe;
	__u16 pppoe_session;
	__u16 ppp_proto;
	/* An MPLS label stack after the tags (EtherType 0x8847), outermost
	 * first; the last entry gets the bottom-of-stack bit. Not with
	 * pppoe: the program reads no labels inside a session.
	 */
	int nmpls;
	__u32 mpls_label[PKT_MAX_MPLS];
	__u16 ethertype;	/* set for non-IP frames (family 0) */
	int family;		/* 4, 6, or 0 for a non-IP frame */
	__u8 saddr[16], daddr[16];	/* IPv4 in the first 4 bytes */
	__u8 proto;
	__u16 sport, dport;
	__u8 tos, ttl;
	__u16 ip_id;
	__u32 flow_label;
	int ipv4_options_len;	/* multiple of 4, at most 40 */
	__u8 ext[PKT_MAX_EXT];	/* IPv6: 0 hop-by-hop, 43 routing, 60 dest opts */
	int next;
	bool fragment;		/* IPv4 MF/offset, or an IPv6 fragment header */
	__u16 frag_offset;	/* in 8-octet units */
	bool more_fragments;
	__u32 frag_id;
	size_t payload_len;
	const __u8 *payload;	/* payload_len bytes; NULL: 0, 1, 2, ... */
};

/* A UDP flow 10.0.0.1:1000 -> 10.0.0.2:2000 (or fd00::1 -> fd00::2). */
void pkt_spec_init(struct pkt_spec *s, int family, __u8 proto);
void pkt_set_addr4(__u8 *addr, __u32 host_order);

/* Writes the frame into buf; returns its length, or 0 if cap is too small. */
size_t pkt_build(const struct pkt_spec *s, __u8 *buf, size_t cap);

/* How pkt_build_tunnel wraps an inner frame. */
struct pkt_encap {
	int kind;		/* CPUSTEER_TUNNEL_* */
	/* GRE and GENEVE: carry the inner Ethernet frame (EtherType 0x6558)
	 * rather than its IP datagram; VXLAN always does, IPIP and SIT never.
	 */
	bool ethernet;
	__u16 gre_flags;	/* GRE and ERSPAN: 0x8000 checksum, 0x2000 key,
				 * 0x1000 sequence (ERSPAN: set for types II
				 * and III, clear for type I, whatever this
				 * says) */
	int geneve_opt_words;	/* GENEVE: 4-octet words of options, up to 63 */
	__u32 vni;		/* VXLAN and GENEVE; the GRE key; ERSPAN's
				 * session ID (10 bits) */
	int erspan_type;	/* ERSPAN: 1, 2 or 3 (0: 2); always Ethernet */
	bool erspan_subheader;	/* ERSPAN type III: the O bit, and 8 octets */
	/* GTP-U (either kind; `vni` is the TEID), always carrying the IP
	 * datagram: the message type (0: a G-PDU, 255), the S and PN flags
	 * (0x02, 0x01), and how many extension headers to chain (the E
	 * flag with them), PDU session containers of 4 and 8 octets in
	 * turn. Any flag adds the 4 octets of optional fields.
	 */
	__u8 gtpu_type;
	__u8 gtpu_flags;
	int gtpu_ext;
};

/* The frame of `outer` whose payload is the encapsulated frame of
 * `inner`: `outer` gives the outer Ethernet and IP headers, and for VXLAN,
 * GENEVE and GTP-U the UDP ports; its protocol and payload are set here.
 * Returns the length, or 0 if cap is too small.
 */
size_t pkt_build_tunnel(const struct pkt_spec *outer, const struct pkt_encap *e,
			const struct pkt_spec *inner, __u8 *buf, size_t cap);

/* Where the frame built from `s` has its IP header. */
size_t pkt_l3_offset(const struct pkt_spec *s);
/* Rewrites the IP length field of a frame built from `s` to say the
 * datagram (IP header included) is `dgram_len` bytes, whatever the frame
 * holds: IPv4 Total Length with its header checksum, or IPv6 Payload
 * Length.
 */
void pkt_set_ip_length(const struct pkt_spec *s, __u8 *frame, size_t dgram_len);

#endif
