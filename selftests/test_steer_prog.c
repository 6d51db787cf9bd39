// SPDX-License-Identifier: GPL-2.0
/* Program-level tests of the steering programs, on the fixture of
 * steer_fixture.h: crafted frames through cpusteer_classify with
 * BPF_PROG_TEST_RUN, each instance configured as the commands configure
 * one.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "indirection.h"
#include "steer.skel.h"
#include "steer_fixture.h"

/* ---- running frames ---- */

/* The program an interface runs: classify's code without the record. */
static int steer_fd(struct env *e)
{
	return bpf_program__fd(e->in.skel->progs.cpusteer_steer);
}

static int notouch_fd(struct env *e)
{
	return instance_prog_fd(&e->in, true);
}

/* ---- what a result must look like ---- */

/* `d`, what one frame moved, must be that frame passed for `reason` and
 * nothing else.
 */
static void expect_counted_as_passed(const struct counts *d, __u32 reason, const char *what)
{
	struct counts want = {};
	char got[256], exp[256];

	want.c.rx_packets = 1;
	want.c.passed[reason] = 1;
	if (!same_counts(d, &want)) {
		printf("#   %s: counters moved: %s; expected: %s\n", what,
		       format_counts(d, got, sizeof(got)), format_counts(&want, exp, sizeof(exp)));
		tu_failures++;
	}
}

/* ---- frames whose IP length fields are set by hand ---- */

/* Where the frame built from `s` has its L4 header: pkt_build writes
 * each IPv6 extension header, and the fragment header, eight octets long.
 */
static size_t l4_offset(const struct pkt_spec *s)
{
	if (s->family == 4)
		return pkt_l3_offset(s) + 20 + s->ipv4_options_len;
	return pkt_l3_offset(s) + 40 + 8 * (s->next + s->fragment);
}

/* A fragment header with offset 0 and no more to come is an atomic
 * fragment (RFC 6946), a whole datagram; anything else is a piece of one.
 */
static bool real_fragment(const struct pkt_spec *s)
{
	return s->fragment && (s->more_fragments || s->frag_offset);
}

/* Bytes of the L4 header that the flow key takes: the two ports. */
static size_t ports_needed(const struct pkt_spec *s)
{
	bool has_ports = s->proto == IPPROTO_TCP || s->proto == IPPROTO_UDP ||
			 s->proto == IPPROTO_SCTP;

	return has_ports && !real_fragment(s) ? 4 : 0;
}

/* What the frame built from `s`, cut to `cut` bytes, must come to: the
 * pass reason, or STEERED. With `length_fits` its IP length field was made
 * to end at the cut; without, it still claims the whole datagram, which
 * the frame no longer holds.
 */
static __u32 cut_outcome(const struct pkt_spec *s, size_t cut, bool length_fits)
{
	size_t l3 = pkt_l3_offset(s), l4 = l4_offset(s);

	if (cut < l3)
		return CPUSTEER_PASS_TRUNC_L2;
	if (cut < l3 + ip_fixed_header_len(s))
		return CPUSTEER_PASS_TRUNC_L3;
	if (!length_fits)
		return CPUSTEER_PASS_BAD_LENGTH;
	/* IPv4: Total Length below IHL * 4; IPv6: the chain runs past the
	 * payload.
	 */
	if (cut < l4)
		return s->family == 4 ? CPUSTEER_PASS_BAD_LENGTH : CPUSTEER_PASS_EXT_HDRS;
	if (cut < l4 + ports_needed(s))
		return CPUSTEER_PASS_TRUNC_L4;
	return STEERED;
}

/* ---- VLAN ---- */

static void vlan_tagged_frame_lands_like_untagged(void)
{
	struct env e;
	struct pkt_spec s;
	struct result plain, tagged;
	int fam;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_UDP);
		plain = run_spec(&e, &s);
		expect_redirect(&plain, "untagged");
		add_vlan(&s, 0x8100, 100);
		tagged = run_spec(&e, &s);
		expect_same_place(&plain, &tagged, fam == 4 ? "802.1Q IPv4" : "802.1Q IPv6");
		ASSERT_TRUE(same_key(&plain.d.key, &tagged.d.key), "tag kept out of the key");
		/* Another VLAN ID is the same flow too. */
		s.vlan_tci[0] = 4000;
		tagged = run_spec(&e, &s);
		expect_same_place(&plain, &tagged, "802.1Q, other VLAN ID");
	}
	env_stop(&e);
}

static void qinq_frame_lands_like_untagged(void)
{
	struct env e;
	struct pkt_spec s;
	struct result plain, tagged;
	int fam;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_TCP);
		plain = run_spec(&e, &s);
		add_vlan(&s, 0x88a8, 10);
		add_vlan(&s, 0x8100, 20);
		tagged = run_spec(&e, &s);
		expect_same_place(&plain, &tagged, fam == 4 ? "QinQ IPv4" : "QinQ IPv6");
		/* Two 802.1Q tags (the older, non-standard stacking) likewise. */
		s.vlan_tpid[0] = 0x8100;
		tagged = run_spec(&e, &s);
		expect_same_place(&plain, &tagged, "double 802.1Q");
	}
	env_stop(&e);
}

static void three_vlan_tags_pass_as_vlan_depth(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	struct counts n;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	add_vlan(&s, 0x88a8, 1);
	add_vlan(&s, 0x8100, 2);
	add_vlan(&s, 0x8100, 3);
	r = run_spec(&e, &s);
	expect_pass(&r, CPUSTEER_PASS_VLAN_DEPTH, "three tags");
	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.passed[CPUSTEER_PASS_VLAN_DEPTH], 1, "vlan_depth counter");
	env_stop(&e);
}

/* ---- IPv4 header ---- */

static void ipv4_options_do_not_change_hash(void)
{
	struct env e;
	struct pkt_spec s;
	struct result plain, r;
	char what[64];
	int ihl;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	plain = run_spec(&e, &s);
	expect_redirect(&plain, "ihl 5");
	for (ihl = 6; ihl <= 15; ihl++) {
		s.ipv4_options_len = (ihl - 5) * 4;
		r = run_spec(&e, &s);
		snprintf(what, sizeof(what), "ihl %d", ihl);
		expect_same_place(&plain, &r, what);
		ASSERT_EQ(r.d.key.sport, 1000, what);
		ASSERT_EQ(r.d.key.dport, 2000, what);
	}
	env_stop(&e);
}

static void ipv4_bad_ihl_or_version_passes_as_bad_l3(void)
{
	static const __u8 bad_first_byte[] = {
		0x40, 0x41, 0x42, 0x43, 0x44,	/* IHL below 5 */
		0x05, 0x35, 0x55, 0x65, 0xf5,	/* version not 4 */
	};
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct result r;
	char what[64];
	size_t len, i;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	len = build(&s, frame);
	for (i = 0; i < sizeof(bad_first_byte); i++) {
		frame[ETH_HLEN] = bad_first_byte[i];
		r = run_frame(&e, frame, len);
		snprintf(what, sizeof(what), "IPv4 first byte %#04x", bad_first_byte[i]);
		expect_pass(&r, CPUSTEER_PASS_BAD_L3, what);
	}
	/* The same check on the IPv6 side: version 4 under the IPv6 type. */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	len = build(&s, frame);
	frame[ETH_HLEN] = 0x40 | (frame[ETH_HLEN] & 0x0f);
	r = run_frame(&e, frame, len);
	expect_pass(&r, CPUSTEER_PASS_BAD_L3, "IPv6 header with version 4");
	env_stop(&e);
}

/* A cut in the fixed 20 bytes is a truncated header. Options cannot be
 * cut short in a frame of one buffer: Total Length covers them, so either
 * the frame is shorter than its Total Length or the Total Length is
 * shorter than the header, and both are bad lengths.
 */
static void ipv4_truncated_header_passes(void)
{
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP], part[FRAME_CAP];
	struct result r;
	char what[80];
	size_t len, cut;
	int fits;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	build(&s, frame);
	for (cut = ETH_HLEN; cut < ETH_HLEN + 20; cut++) {
		r = run_frame(&e, frame, cut);
		snprintf(what, sizeof(what), "IPv4 cut at %zu bytes", cut);
		expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, what);
	}
	s.ipv4_options_len = 40;
	len = build(&s, frame);
	for (cut = ETH_HLEN + 20; cut < ETH_HLEN + 60; cut += 3) {
		for (fits = 0; fits <= 1; fits++) {
			r = run_frame(&e, part, cut_frame(&s, frame, cut, fits, part));
			snprintf(what, sizeof(what), "ihl 15 cut at %zu of %zu, Total Length %s",
				 cut, len, fits ? "at the cut" : "as built");
			expect_pass(&r, CPUSTEER_PASS_BAD_LENGTH, what);
		}
	}
	env_stop(&e);
}

/* ---- IPv6 extension headers ---- */

static void ipv6_ext_headers_do_not_change_hash(void)
{
	struct env e;
	struct pkt_spec s;
	struct result plain, r;
	char what[64];
	int n, i, start;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	plain = run_spec(&e, &s);
	expect_redirect(&plain, "no ext headers");
	for (start = 0; start < 3; start++) {
		for (n = 1; n <= 8; n++) {
			s.next = n;
			for (i = 0; i < n; i++)
				s.ext[i] = ext_cycle[(start + i) % 3];
			r = run_spec(&e, &s);
			snprintf(what, sizeof(what), "%d ext headers from type %u", n,
				 ext_cycle[start]);
			expect_same_place(&plain, &r, what);
			ASSERT_EQ(r.d.key.proto, IPPROTO_UDP, what);
			ASSERT_EQ(r.d.key.dport, 2000, what);
		}
	}
	env_stop(&e);
}

/* An extension header longer than eight octets (Hdr Ext Len 1..3) is
 * skipped by its length field: pkt_build writes 8-octet headers, so widen
 * one by hand with Pad1 options.
 */
static void ipv6_ext_header_length_field_is_honoured(void)
{
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct result plain, r;
	char what[64];
	size_t len, ext_end = ETH_HLEN + 40 + 8;
	__u16 plen;
	int units;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	plain = run_spec(&e, &s);
	for (units = 1; units <= 3; units++) {
		s.next = 1;
		s.ext[0] = 60;
		len = build(&s, frame);
		memmove(frame + ext_end + 8 * units, frame + ext_end, len - ext_end);
		memset(frame + ext_end, 0, 8 * units);
		frame[ETH_HLEN + 40 + 1] = units;
		plen = ((frame[ETH_HLEN + 4] << 8) | frame[ETH_HLEN + 5]) + 8 * units;
		frame[ETH_HLEN + 4] = plen >> 8;
		frame[ETH_HLEN + 5] = plen & 0xff;
		r = run_frame(&e, frame, len + 8 * units);
		snprintf(what, sizeof(what), "dest options, Hdr Ext Len %d", units);
		expect_same_place(&plain, &r, what);
	}
	env_stop(&e);
}

static void ipv6_nine_ext_headers_pass_as_ext_headers(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	int i;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 9;
	for (i = 0; i < s.next; i++)
		s.ext[i] = ext_cycle[i % 3];
	r = run_spec(&e, &s);
	expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "9 ext headers");
	s.next = PKT_MAX_EXT;
	for (i = 0; i < s.next; i++)
		s.ext[i] = 60;
	r = run_spec(&e, &s);
	expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "10 dest-options headers");
	env_stop(&e);
}

/* A chain of extension headers cut short is a frame shorter than its
 * Payload Length says; once Payload Length ends at the cut too, the chain
 * runs past the payload.
 */
static void expect_cut_chain_passes(struct env *e, const struct pkt_spec *s, size_t cut,
				    const char *what)
{
	__u8 frame[FRAME_CAP], part[FRAME_CAP];
	struct result r;
	char buf[96];

	build(s, frame);
	r = run_frame(e, part, cut_frame(s, frame, cut, false, part));
	snprintf(buf, sizeof(buf), "%s, Payload Length as built", what);
	expect_pass(&r, CPUSTEER_PASS_BAD_LENGTH, buf);
	r = run_frame(e, part, cut_frame(s, frame, cut, true, part));
	snprintf(buf, sizeof(buf), "%s, Payload Length at the cut", what);
	expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, buf);
}

static void ipv6_truncated_ext_header_passes(void)
{
	struct env e;
	struct pkt_spec s;
	char what[64];
	size_t cut, first = ETH_HLEN + 40;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 3;
	s.ext[0] = 0;
	s.ext[1] = 43;
	s.ext[2] = 60;
	/* Every cut inside the chain: within the first, second or third. */
	for (cut = first; cut < first + 3 * 8; cut++) {
		snprintf(what, sizeof(what), "chain of 3 cut at %zu bytes", cut);
		expect_cut_chain_passes(&e, &s, cut, what);
	}
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.fragment = true;
	s.more_fragments = true;
	expect_cut_chain_passes(&e, &s, first + 5, "fragment header cut at 5 of 8 bytes");
	env_stop(&e);
}

/* ---- IP length fields ---- */

static void malformed_ip_lengths_pass_with_their_reason(void)
{
	const struct length_case *c;
	struct env e;
	__u8 frame[FRAME_CAP];
	struct counts before, after, d;
	struct result r;

	env_init(&e);
	ENV_START(&e);
	for (c = length_cases; c < length_cases + nlength_cases; c++) {
		ASSERT_EQ(read_counts(&e, &before), 0, "read counters");
		r = run_frame(&e, frame, build_length_case(c, frame));
		ASSERT_EQ(read_counts(&e, &after), 0, "read counters");
		expect_pass(&r, c->reason, c->name);
		d = counts_since(&before, &after);
		expect_counted_as_passed(&d, c->reason, c->name);
	}
	env_stop(&e);
}

/* The frame of `s`, padded every way, must land where `plain` did. */
static void expect_padding_ignored(struct env *e, const struct pkt_spec *s,
				   const struct result *plain)
{
	static const __u8 fills[] = { 0x00, 0xa5, 0xff };
	__u8 frame[FRAME_CAP];
	size_t len = build(s, frame), to[] = { 60, len + 1, len + 200 }, i, j;
	struct result r;
	char what[96];

	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		for (j = 0; j < ARRAY_SIZE(to); j++) {
			r = run_frame(e, frame, pad_frame(frame, len, to[j], fills[i]));
			snprintf(what, sizeof(what), "IPv%d proto %u padded to %zu with %#x",
				 s->family, s->proto, to[j], fills[i]);
			expect_same_place(plain, &r, what);
			ASSERT_TRUE(same_key(&plain->d.key, &r.d.key), what);
		}
	}
	/* Ending right after the ports, the datagram leaves the rest of its
	 * L4 header as padding.
	 */
	pkt_set_ip_length(s, frame, l4_offset(s) - pkt_l3_offset(s) + 4);
	r = run_frame(e, frame, pad_frame(frame, len, 60, 0));
	snprintf(what, sizeof(what), "IPv%d proto %u datagram ending with its ports", s->family,
		 s->proto);
	expect_same_place(plain, &r, what);
}

/* Bytes after the datagram, Ethernet padding up to 60 bytes or whatever
 * else trails it in the frame, are no part of the flow: the frame lands
 * where the frame without them lands.
 */
static void padded_frame_lands_like_unpadded(void)
{
	struct env e;
	struct pkt_spec s;
	struct result plain;
	int fam, tcp;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		for (tcp = 0; tcp <= 1; tcp++) {
			pkt_spec_init(&s, fam, tcp ? IPPROTO_TCP : IPPROTO_UDP);
			s.payload_len = 0;
			plain = run_spec(&e, &s);
			expect_redirect(&plain, "unpadded");
			expect_padding_ignored(&e, &s, &plain);
		}
	}
	env_stop(&e);
}

/* Payload Length 0 under a hop-by-hop header is a jumbogram (RFC 2675):
 * its length is in an option and the frame ends where it does. It lands
 * like the same datagram with its length in the header.
 */
static void ipv6_jumbogram_lands_like_its_datagram(void)
{
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct result plain, r;
	size_t len;
	int tcp;

	env_init(&e);
	ENV_START(&e);
	for (tcp = 0; tcp <= 1; tcp++) {
		pkt_spec_init(&s, 6, tcp ? IPPROTO_TCP : IPPROTO_UDP);
		s.next = 1;
		s.ext[0] = 0;
		len = build(&s, frame);
		plain = run_frame(&e, frame, len);
		expect_redirect(&plain, "Payload Length in the header");
		pkt_set_ip_length(&s, frame, 40);
		r = run_frame(&e, frame, len);
		expect_same_place(&plain, &r, tcp ? "TCP jumbogram" : "UDP jumbogram");
		ASSERT_TRUE(same_key(&plain.d.key, &r.d.key), "jumbogram's flow key");
	}
	env_stop(&e);
}

/* ---- fields that change within a flow ---- */

static void ttl_tos_id_and_flow_label_do_not_move_flow(void)
{
	static const __u8 ttls[] = { 1, 63, 255 };
	static const __u8 toses[] = { 0x10, 0xb8, 0xff };
	static const __u16 ids[] = { 1, 0x1234, 0xffff };
	static const __u32 labels[] = { 1, 0x12345, 0xfffff };
	struct env e;
	struct pkt_spec s;
	struct result plain, r;
	char what[64];
	int fam, i;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_TCP);
		plain = run_spec(&e, &s);
		expect_redirect(&plain, "baseline");
		for (i = 0; i < 3; i++) {
			pkt_spec_init(&s, fam, IPPROTO_TCP);
			s.ttl = ttls[i];
			r = run_spec(&e, &s);
			snprintf(what, sizeof(what), "IPv%d ttl %u", fam, ttls[i]);
			expect_same_place(&plain, &r, what);

			pkt_spec_init(&s, fam, IPPROTO_TCP);
			s.tos = toses[i];
			r = run_spec(&e, &s);
			snprintf(what, sizeof(what), "IPv%d tos/traffic class %#x", fam, toses[i]);
			expect_same_place(&plain, &r, what);

			pkt_spec_init(&s, fam, IPPROTO_TCP);
			if (fam == 4)
				s.ip_id = ids[i];
			else
				s.flow_label = labels[i];
			r = run_spec(&e, &s);
			snprintf(what, sizeof(what), "IPv%d %s %#x", fam,
				 fam == 4 ? "IP ID" : "flow label",
				 fam == 4 ? ids[i] : labels[i]);
			expect_same_place(&plain, &r, what);
		}
	}
	env_stop(&e);
}

/* ---- fragments ---- */

static void ipv4_fragments_of_one_datagram_share_cpu(void)
{
	struct env e;
	struct pkt_spec s;
	struct result first, r, whole;
	__u8 frame[FRAME_CAP];
	char what[64];
	__u32 dgram;
	size_t len;

	env_init(&e);
	ENV_START(&e);
	for (dgram = 0; dgram < 16; dgram++) {
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		s.sport = 5000 + dgram;
		s.ip_id = 100 + dgram;
		s.fragment = true;
		s.more_fragments = true;
		s.payload_len = 64;
		first = run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u first fragment", dgram);
		expect_redirect(&first, what);
		ASSERT_EQ(first.d.key.sport, 0, what);
		ASSERT_EQ(first.d.key.dport, 0, what);
		ASSERT_EQ(first.d.key.proto, IPPROTO_UDP, what);
		ASSERT_EQ(first.d.key.family, 4, what);

		s.frag_offset = 9;	/* 72 bytes in: UDP header and 64 of payload */
		r = run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u middle fragment", dgram);
		expect_same_place(&first, &r, what);
		ASSERT_TRUE(same_key(&first.d.key, &r.d.key), what);

		s.frag_offset = 17;
		s.more_fragments = false;
		r = run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u last fragment", dgram);
		expect_same_place(&first, &r, what);
		ASSERT_TRUE(same_key(&first.d.key, &r.d.key), what);

		/* Unfragmented, the same flow does carry its ports, also with
		 * Don't Fragment set: DF is no fragment.
		 */
		s.fragment = false;
		s.frag_offset = 0;
		whole = run_spec(&e, &s);
		expect_redirect(&whole, "unfragmented");
		ASSERT_EQ(whole.d.key.sport, 5000 + dgram, "unfragmented sport");
		len = build(&s, frame);
		frame[ETH_HLEN + 6] |= 0x40;
		r = run_frame(&e, frame, len);
		expect_same_place(&whole, &r, "DF set, not fragmented");
		ASSERT_EQ(r.d.key.sport, 5000 + dgram, "DF datagram sport");
	}
	env_stop(&e);
}

static void ipv6_fragments_of_one_datagram_share_cpu(void)
{
	struct env e;
	struct pkt_spec s;
	struct result first, r;
	char what[64];
	__u32 dgram;

	env_init(&e);
	ENV_START(&e);
	for (dgram = 0; dgram < 16; dgram++) {
		pkt_spec_init(&s, 6, dgram & 1 ? IPPROTO_TCP : IPPROTO_UDP);
		s.sport = 6000 + dgram;
		s.frag_id = 0xabc00 + dgram;
		s.fragment = true;
		s.more_fragments = true;
		s.payload_len = 64;
		if (dgram & 2) {	/* behind a destination-options header too */
			s.ext[0] = 60;
			s.next = 1;
		}
		first = run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u first fragment", dgram);
		expect_redirect(&first, what);
		ASSERT_EQ(first.d.key.sport, 0, what);
		ASSERT_EQ(first.d.key.dport, 0, what);
		ASSERT_EQ(first.d.key.proto, s.proto, what);
		ASSERT_EQ(first.d.key.family, 6, what);

		s.frag_offset = 10;
		r = run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u middle fragment", dgram);
		expect_same_place(&first, &r, what);

		s.frag_offset = 20;
		s.more_fragments = false;
		r = run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u last fragment", dgram);
		expect_same_place(&first, &r, what);
		ASSERT_TRUE(same_key(&first.d.key, &r.d.key), what);
	}
	env_stop(&e);
}

/* A fragment header with offset 0 and no more fragments (RFC 6946) wraps a
 * whole datagram: it keeps its ports and lands where the datagram without
 * the header lands. A real first fragment is hashed without its ports,
 * like the rest of its datagram.
 */
static void ipv6_atomic_fragment_lands_like_whole_datagram(void)
{
	struct env e;
	struct pkt_spec s;
	struct result whole, r, other_ports;
	char what[80];
	int tcp, dest_opts;

	env_init(&e);
	ENV_START(&e);
	for (tcp = 0; tcp <= 1; tcp++) {
		for (dest_opts = 0; dest_opts <= 1; dest_opts++) {
			pkt_spec_init(&s, 6, tcp ? IPPROTO_TCP : IPPROTO_UDP);
			s.next = dest_opts;
			s.ext[0] = 60;
			whole = run_spec(&e, &s);
			expect_redirect(&whole, "whole datagram");

			s.fragment = true;
			s.frag_id = 0x1234;
			r = run_spec(&e, &s);
			snprintf(what, sizeof(what), "%s atomic fragment%s", tcp ? "TCP" : "UDP",
				 dest_opts ? " after destination options" : "");
			expect_same_place(&whole, &r, what);
			ASSERT_TRUE(same_key(&whole.d.key, &r.d.key), what);

			s.more_fragments = true;
			r = run_spec(&e, &s);
			snprintf(what, sizeof(what), "%s first fragment%s", tcp ? "TCP" : "UDP",
				 dest_opts ? " after destination options" : "");
			expect_redirect(&r, what);
			ASSERT_EQ(r.d.key.sport, 0, what);
			ASSERT_EQ(r.d.key.dport, 0, what);
			ASSERT_NE(r.d.hash, whole.d.hash, what);
			s.sport++;
			s.dport++;
			other_ports = run_spec(&e, &s);
			expect_same_place(&r, &other_ports, "first fragment with other ports");
		}
	}
	env_stop(&e);
}

/* ---- L4 protocols ---- */

static void sctp_ports_are_parsed(void)
{
	struct env e;
	struct pkt_spec s;
	struct result a, b;
	int fam, diff_hash = 0, i;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		for (i = 0; i < 20; i++) {
			pkt_spec_init(&s, fam, IPPROTO_SCTP);
			s.sport = 3868;
			s.dport = 2905 + i;
			a = run_spec(&e, &s);
			expect_redirect(&a, "SCTP");
			ASSERT_EQ(a.d.key.proto, IPPROTO_SCTP, "SCTP key proto");
			ASSERT_EQ(a.d.key.sport, 3868, "SCTP key sport");
			ASSERT_EQ(a.d.key.dport, 2905 + i, "SCTP key dport");
			s.sport = 3869;
			b = run_spec(&e, &s);
			expect_redirect(&b, "SCTP other port");
			ASSERT_EQ(b.d.key.sport, 3869, "SCTP key sport");
			ASSERT_TRUE(!same_key(&a.d.key, &b.d.key), "different SCTP ports, different keys");
			diff_hash += a.d.hash != b.d.hash;
		}
	}
	ASSERT_EQ(diff_hash, 40, "SCTP port pairs with different hashes");
	env_stop(&e);
}

static void icmp_hashes_on_addresses_and_protocol(void)
{
	struct env e;
	struct pkt_spec s;
	struct result a, b, udp;
	struct counts n;
	int fam;
	__u8 proto;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		proto = fam == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
		pkt_spec_init(&s, fam, proto);
		a = run_spec(&e, &s);
		expect_redirect(&a, "ICMP");
		ASSERT_EQ(a.d.key.proto, proto, "ICMP key proto");
		ASSERT_EQ(a.d.key.sport, 0, "ICMP key sport");
		ASSERT_EQ(a.d.key.dport, 0, "ICMP key dport");
		/* Bytes where ports would be (type, code, id) do not count. */
		s.payload_len = 40;
		b = run_spec(&e, &s);
		expect_same_place(&a, &b, "ICMP with other payload");
		/* Another destination is another flow. */
		if (fam == 4)
			pkt_set_addr4(s.daddr, 0x0a000003);
		else
			s.daddr[15] = 3;
		b = run_spec(&e, &s);
		expect_redirect(&b, "ICMP to another host");
		ASSERT_NE(b.d.hash, a.d.hash, "ICMP hash with another destination");
		/* The protocol is part of the key. */
		pkt_spec_init(&s, fam, IPPROTO_UDP);
		s.sport = s.dport = 0;
		udp = run_spec(&e, &s);
		ASSERT_NE(udp.d.hash, a.d.hash, "UDP with ports 0 vs ICMP between same hosts");
	}
	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.seen_l3_only, 6, "seen_l3_only counter");
	env_stop(&e);
}

/* ---- one flow, any wrapping ---- */

static void same_flow_in_any_wrapping_lands_on_one_cpu(void)
{
	struct env e;
	struct pkt_spec s;
	struct result plain, r;
	char what[96];
	int flow, vl, opt, next, i;

	env_init(&e);
	ENV_START(&e);
	rng_seed(7);
	for (flow = 0; flow < 16; flow++) {
		struct pkt_spec base;

		random_flow(&base, 4);
		plain = run_spec(&e, &base);
		expect_redirect(&plain, "IPv4 plain");
		for (vl = 0; vl <= 2; vl++) {
			for (opt = 0; opt <= 40; opt += 8) {
				s = base;
				if (vl >= 1)
					add_vlan(&s, vl == 2 ? 0x88a8 : 0x8100, 5);
				if (vl == 2)
					add_vlan(&s, 0x8100, 6);
				s.ipv4_options_len = opt;
				s.ttl = 10 + opt;
				r = run_spec(&e, &s);
				snprintf(what, sizeof(what), "IPv4 flow %d, %d tags, %d option bytes",
					 flow, vl, opt);
				expect_same_place(&plain, &r, what);
			}
		}
		random_flow(&base, 6);
		plain = run_spec(&e, &base);
		expect_redirect(&plain, "IPv6 plain");
		for (vl = 0; vl <= 2; vl++) {
			for (next = 0; next <= 8; next += 2) {
				s = base;
				if (vl >= 1)
					add_vlan(&s, vl == 2 ? 0x88a8 : 0x8100, 5);
				if (vl == 2)
					add_vlan(&s, 0x8100, 6);
				s.next = next;
				for (i = 0; i < next; i++)
					s.ext[i] = ext_cycle[(flow + i) % 3];
				s.flow_label = flow * 1000 + next;
				r = run_spec(&e, &s);
				snprintf(what, sizeof(what), "IPv6 flow %d, %d tags, %d ext headers",
					 flow, vl, next);
				expect_same_place(&plain, &r, what);
			}
		}
	}
	env_stop(&e);
}

/* ---- symmetric mode ---- */

static void swap_ends(struct pkt_spec *s)
{
	__u8 addr[16];
	__u16 port;

	memcpy(addr, s->saddr, 16);
	memcpy(s->saddr, s->daddr, 16);
	memcpy(s->daddr, addr, 16);
	port = s->sport;
	s->sport = s->dport;
	s->dport = port;
}

struct apart {
	int cpu;	/* pairs whose two directions land on different CPUs */
	int hash;	/* pairs whose two directions hash differently */
	bool ok;	/* every frame redirected */
};

/* Sends both directions of 50 random connections of one family. */
static struct apart directions_apart(struct env *e, int fam)
{
	struct apart a = { .ok = true };
	struct pkt_spec s;
	struct result fwd, rev;
	int i;

	rng_seed(11 + fam);
	for (i = 0; i < 50; i++) {
		random_flow(&s, fam);
		if (i == 0)	/* same host both ends: ports decide */
			memcpy(s.daddr, s.saddr, 16);
		fwd = run_spec(e, &s);
		swap_ends(&s);
		rev = run_spec(e, &s);
		if (fwd.err || rev.err || fwd.retval != XDP_REDIRECT || rev.retval != XDP_REDIRECT) {
			printf("#   IPv%d pair %d: not redirected (err %d/%d, verdict %u/%u)\n",
			       fam, i, fwd.err, rev.err, fwd.retval, rev.retval);
			a.ok = false;
		}
		a.cpu += fwd.d.cpu != rev.d.cpu;
		a.hash += fwd.d.hash != rev.d.hash;
	}
	return a;
}

static void symmetric_mode_maps_both_directions_alike(void)
{
	struct env e;
	struct apart a;
	int fam;

	env_init(&e);
	env_opt(&e, "symmetric", NULL);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		a = directions_apart(&e, fam);
		ASSERT_TRUE(a.ok, fam == 4 ? "IPv4: every frame redirected" : "IPv6: every frame redirected");
		ASSERT_EQ(a.cpu, 0, fam == 4 ? "IPv4 pairs on two CPUs" : "IPv6 pairs on two CPUs");
		ASSERT_EQ(a.hash, 0, fam == 4 ? "IPv4 pairs with two hashes" : "IPv6 pairs with two hashes");
	}
	env_stop(&e);
}

static void asymmetric_mode_tells_directions_apart(void)
{
	struct env e;
	struct apart a;
	int fam;

	env_init(&e);
	ENV_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		a = directions_apart(&e, fam);
		ASSERT_TRUE(a.ok, fam == 4 ? "IPv4: every frame redirected" : "IPv6: every frame redirected");
		ASSERT_TRUE(a.cpu >= 1, fam == 4 ? "IPv4: of 50 pairs, one at least on two CPUs"
						 : "IPv6: of 50 pairs, one at least on two CPUs");
		ASSERT_TRUE(a.hash >= 49, fam == 4 ? "IPv4: directions hash apart"
						   : "IPv6: directions hash apart");
	}
	env_stop(&e);
}

/* ---- the key ---- */

#define NFLOWS 1000

/* Places NFLOWS random flows (seeded, so the same flows every call). */
static bool place_flows(struct env *e, __u64 seed, __u32 *cpu, __u32 *hash)
{
	struct pkt_spec s;
	struct result r;
	int i;

	rng_seed(seed);
	for (i = 0; i < NFLOWS; i++) {
		random_flow(&s, 0);
		r = run_spec(e, &s);
		if (r.err || r.retval != XDP_REDIRECT) {
			printf("#   flow %d: not redirected (err %d, verdict %u)\n", i, r.err,
			       r.retval);
			return false;
		}
		cpu[i] = r.d.cpu;
		hash[i] = r.d.hash;
	}
	return true;
}

static bool place_with_key(const char *key, __u64 seed, __u32 *cpu, __u32 *hash)
{
	struct env e;
	bool ok;

	env_init(&e);
	env_opt(&e, "key", key);
	if (env_start(&e)) {
		env_stop(&e);
		return false;
	}
	ok = place_flows(&e, seed, cpu, hash);
	env_stop(&e);
	return ok;
}

static void key_change_moves_about_half_of_flows(void)
{
	static __u32 cpu_a[NFLOWS], hash_a[NFLOWS], cpu_b[NFLOWS], hash_b[NFLOWS];
	int i, moved = 0, rehashed = 0;

	ASSERT_TRUE(place_with_key(KEY_A, 1, cpu_a, hash_a), "placement with key A");
	ASSERT_TRUE(place_with_key(KEY_B, 1, cpu_b, hash_b), "placement with key B");
	for (i = 0; i < NFLOWS; i++) {
		moved += cpu_a[i] != cpu_b[i];
		rehashed += hash_a[i] != hash_b[i];
	}
	printf("#   %d of %d flows moved\n", moved, NFLOWS);
	ASSERT_TRUE(moved >= 350 && moved <= 650, "flows moved by a new key, 35%..65%");
	ASSERT_TRUE(rehashed >= NFLOWS - 1, "hashes changed by a new key");
}

static void same_key_gives_identical_placement(void)
{
	static __u32 cpu_a[NFLOWS], hash_a[NFLOWS], cpu_b[NFLOWS], hash_b[NFLOWS];
	int i, differ = 0;

	ASSERT_TRUE(place_with_key(KEY_B, 2, cpu_a, hash_a), "first placement");
	ASSERT_TRUE(place_with_key(KEY_B, 2, cpu_b, hash_b), "second placement");
	for (i = 0; i < NFLOWS; i++)
		differ += cpu_a[i] != cpu_b[i] || hash_a[i] != hash_b[i];
	ASSERT_EQ(differ, 0, "flows placed differently by two loads with one key");
}

/* The decision must be the table's: bucket by multiply-shift of the hash,
 * CPU from that bucket's entry.
 */
static void flow_cpu_is_table_entry_of_its_bucket(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	__u32 nb, bad_bucket = 0, bad_cpu = 0, i;

	env_init(&e);
	env_opt(&e, "buckets", "61");
	ENV_START(&e);
	nb = e.o.cfg.nbuckets;
	rng_seed(3);
	for (i = 0; i < 500; i++) {
		random_flow(&s, 0);
		r = run_spec(&e, &s);
		expect_redirect(&r, "random flow");
		bad_bucket += r.d.bucket != (__u32)(((__u64)r.d.hash * nb) >> 32);
		bad_cpu += r.d.bucket >= nb || r.d.cpu != e.table[r.d.bucket];
	}
	ASSERT_EQ(bad_bucket, 0, "flows whose bucket is not hash * nbuckets >> 32");
	ASSERT_EQ(bad_cpu, 0, "flows whose cpu is not their bucket's table entry");
	env_stop(&e);
}

/* ---- known answers ---- */

/* Flow hashes worked out from the flow hash specification alone, by an
 * implementation outside this project (SipHash-1-3 checked against its
 * published vectors, lookup3 against Bob Jenkins' driver values), never
 * read off the program. The message is the flow's wire bytes: source
 * address, destination address, source port, destination port, protocol;
 * ports are zero for fragments and protocols without ports, and symmetric
 * mode puts the lower end (address as a big-endian number, then port)
 * first. SipHash-1-3 takes k0 and k1 as the little-endian bytes 0-7 and
 * 8-15 of --key and is folded to (u32)(h ^ h >> 32); jhash is lookup3's
 * hashword over the message as little-endian words, the last zero-padded,
 * with initval the XOR of the key's four little-endian words (KEY_A,
 * KEY_B and KEY_SIPREF give 0, so jhash rows use KEY_C: 0xbaedd26b). The
 * bucket is hash * nbuckets >> 32.
 */
#define KEY_SIPREF "000102030405060708090a0b0c0d0e0f"	/* SipHash's test key */
#define KEY_C "f00dfeed0123456789abcdef13579bdf"

struct known_answer {
	const char *src, *dst;	/* IPv4 or IPv6 by their form */
	__u16 sport, dport;
	__u8 proto;
	bool first_fragment;	/* IPv6: a fragment header, more to come */
	const char *key, *hash_fn;
	bool symmetric;
	__u32 nbuckets;
	__u32 hash, bucket;
};

static const struct known_answer known_answers[] = {
	/* c0000201 c6336402 04d2 0050 11 */
	{ "192.0.2.1", "198.51.100.2", 1234, 80, IPPROTO_UDP, false,
	  KEY_SIPREF, "siphash13", false, 512, 0x74431800, 232 },
	/* 0a010203 0a030201 9c40 01bb 06 */
	{ "10.1.2.3", "10.3.2.1", 40000, 443, IPPROTO_TCP, false,
	  KEY_A, "siphash13", false, 61, 0x731ab1e7, 27 },
	/* 0a010203 0a030201 0000 0000 01 */
	{ "10.1.2.3", "10.3.2.1", 0, 0, IPPROTO_ICMP, false,
	  KEY_A, "siphash13", false, 512, 0xe1ef97b7, 451 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 14e9 0035 11
	 */
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, false,
	  KEY_B, "siphash13", false, 512, 0x4102b248, 130 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 0000 0000 11: the first fragment, ports not hashed
	 */
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, true,
	  KEY_B, "siphash13", false, 100, 0x89a37e87, 53 },
	/* 09000002 0a000001 0050 1388 06: the ends swapped, 9.0.0.2 being
	 * the lower address (as little-endian words it would be the higher)
	 */
	{ "10.0.0.1", "9.0.0.2", 5000, 80, IPPROTO_TCP, false,
	  KEY_A, "siphash13", true, 512, 0xbe392b94, 380 },
	/* 0a000001 09000002 1388 0050 06: the same, not symmetric */
	{ "10.0.0.1", "9.0.0.2", 5000, 80, IPPROTO_TCP, false,
	  KEY_A, "siphash13", false, 512, 0x739f376d, 231 },
	/* 20010db8 00000000 00000000 00000005 (twice) 0002 0100 11: one
	 * address, so port 2 is the lower end (as wire words, 256 would be)
	 */
	{ "2001:db8::5", "2001:db8::5", 256, 2, IPPROTO_UDP, false,
	  KEY_C, "siphash13", true, 512, 0x5ab25d22, 181 },
	/* c0000201 c6336402 04d2 0050 11 */
	{ "192.0.2.1", "198.51.100.2", 1234, 80, IPPROTO_UDP, false,
	  KEY_C, "jhash", false, 512, 0xce7fbb9d, 412 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 01bb c350 06
	 */
	{ "2001:db8::1", "2001:db8::2", 443, 50000, IPPROTO_TCP, false,
	  KEY_C, "jhash", false, 61, 0x2726e906, 9 },
	/* 0a010203 0a030201 0000 0000 01 */
	{ "10.1.2.3", "10.3.2.1", 0, 0, IPPROTO_ICMP, false,
	  KEY_C, "jhash", false, 512, 0x3e78d633, 124 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 0000 0000 11
	 */
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, true,
	  KEY_C, "jhash", false, 100, 0xf1f0aa23, 94 },
	/* 09000002 0a000001 0050 1388 06 */
	{ "10.0.0.1", "9.0.0.2", 5000, 80, IPPROTO_TCP, false,
	  KEY_C, "jhash", true, 1000, 0x022700eb, 8 },
};

static void known_answer_spec(const struct known_answer *ka, struct pkt_spec *s)
{
	int fam = strchr(ka->src, ':') ? 6 : 4;

	pkt_spec_init(s, fam, ka->proto);
	inet_pton(fam == 6 ? AF_INET6 : AF_INET, ka->src, s->saddr);
	inet_pton(fam == 6 ? AF_INET6 : AF_INET, ka->dst, s->daddr);
	s->sport = ka->sport;
	s->dport = ka->dport;
	s->fragment = ka->first_fragment;
	s->more_fragments = ka->first_fragment;
}

static void check_known_answer(const struct known_answer *ka)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	char what[128], buckets[16];

	snprintf(what, sizeof(what), "%s %s:%u > %s:%u proto %u%s%s, %u buckets", ka->hash_fn,
		 ka->src, ka->sport, ka->dst, ka->dport, ka->proto,
		 ka->first_fragment ? ", first fragment" : "", ka->symmetric ? ", symmetric" : "",
		 ka->nbuckets);
	snprintf(buckets, sizeof(buckets), "%u", ka->nbuckets);
	env_init(&e);
	env_opt(&e, "key", ka->key);
	env_opt(&e, "hash", ka->hash_fn);
	env_opt(&e, "buckets", buckets);
	if (ka->symmetric)
		env_opt(&e, "symmetric", NULL);
	ENV_START(&e);
	known_answer_spec(ka, &s);
	r = run_spec(&e, &s);
	expect_redirect(&r, what);
	if (r.d.hash != ka->hash || r.d.bucket != ka->bucket) {
		printf("#   %s: hash %#010x bucket %u, expected %#010x bucket %u\n", what,
		       r.d.hash, r.d.bucket, ka->hash, ka->bucket);
		tu_failures++;
	}
	env_stop(&e);
}

static void flow_hash_known_answers(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_answers); i++)
		check_known_answer(&known_answers[i]);
}

/* ---- weights and spread ---- */

static void weights_3_1_give_cpu0_three_quarters(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	__u32 owned[2], *table, on0 = 0, i;

	env_init(&e);
	env_opt(&e, "weights", "3,1");
	ENV_START(&e);
	table = calloc(e.o.cfg.nbuckets, sizeof(*table));
	ASSERT_TRUE(table, "allocate table copy");
	if (table) {
		instance_read_table(&e.in, table, e.o.cfg.nbuckets);
		indirection_count(table, e.o.cfg.nbuckets, &e.o.cpus, owned);
		ASSERT_EQ(owned[0], 384, "buckets of CPU 0 in the kernel table");
		ASSERT_EQ(owned[1], 128, "buckets of CPU 1 in the kernel table");
		free(table);
	}
	rng_seed(4);
	for (i = 0; i < 4000; i++) {
		random_flow(&s, 0);
		r = run_spec(&e, &s);
		on0 += r.retval == XDP_REDIRECT && r.d.cpu == 0;
	}
	printf("#   CPU 0 got %u of 4000 flows\n", on0);
	ASSERT_TRUE(on0 >= 2800 && on0 <= 3200, "CPU 0's share of 4000 flows in 70%..80%");
	env_stop(&e);
}

static void spread_ports_between_two_hosts(const char *hash_fn)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	__u32 per_cpu[2] = {}, other = 0, i;

	env_init(&e);
	env_opt(&e, "hash", hash_fn);
	ENV_START(&e);
	for (i = 0; i < 1000; i++) {
		pkt_spec_init(&s, 4, IPPROTO_TCP);
		s.sport = 32768 + i * 7;
		s.dport = 443;
		r = run_spec(&e, &s);
		if (r.retval == XDP_REDIRECT && r.d.cpu < 2)
			per_cpu[r.d.cpu]++;
		else
			other++;
	}
	printf("#   %s: CPU 0 %u, CPU 1 %u of 1000 flows\n", hash_fn, per_cpu[0], per_cpu[1]);
	ASSERT_EQ(other, 0, "flows not redirected to CPU 0 or 1");
	ASSERT_TRUE(per_cpu[0] >= 450, "CPU 0 gets at least 45%");
	ASSERT_TRUE(per_cpu[1] >= 450, "CPU 1 gets at least 45%");
	env_stop(&e);
}

static void ports_spread_flows_of_two_hosts_siphash13(void)
{
	spread_ports_between_two_hosts("siphash13");
}

static void ports_spread_flows_of_two_hosts_jhash(void)
{
	spread_ports_between_two_hosts("jhash");
}

/* ---- frames the program must survive ---- */

static bool pass_or_redirect(const struct result *r)
{
	return !r->err && (r->retval == XDP_PASS || r->retval == XDP_REDIRECT) &&
	       r->d.outcome != ~0u;
}

static void random_short_frames_pass_or_redirect(void)
{
	struct env e;
	__u8 frame[64];
	struct result r;
	int len, n, t, bad = 0, total = 0, redirected[ARRAY_SIZE(random_types)] = {};

	env_init(&e);
	ENV_START(&e);
	rng_seed(5);
	for (len = ETH_HLEN; len <= 60; len++) {
		for (t = 0; t < (int)ARRAY_SIZE(random_types); t++) {
			for (n = 0; n < 21; n++) {
				random_frame(frame, len, random_types[t], n % 3);
				r = run_frame(&e, frame, len);
				total++;
				redirected[t] += r.retval == XDP_REDIRECT;
				if (!pass_or_redirect(&r) && bad++ < 5)
					printf("#   %d random bytes (type %#x): err %d, verdict %u, outcome %u\n",
					       len, random_types[t], r.err, r.retval, r.d.outcome);
			}
		}
	}
	printf("#   of %d random frames, %d IPv4 and %d IPv6 redirected\n", total,
	       redirected[1], redirected[2]);
	ASSERT_EQ(bad, 0, "random frames neither passed nor redirected");
	ASSERT_TRUE(redirected[1] > 0, "some random IPv4 frames make it to a CPU");
	ASSERT_TRUE(redirected[2] > 0, "some random IPv6 frames make it to a CPU");
	env_stop(&e);
}

/* Whether `r` is `want` (cut_outcome()); a steered frame must land where
 * the whole frame did.
 */
static bool came_to(const struct result *r, __u32 want, const struct result *whole)
{
	if (!pass_or_redirect(r))
		return false;
	if (want == STEERED)
		return r->retval == XDP_REDIRECT && r->d.outcome == CPUSTEER_OUT_REDIRECT &&
		       r->d.hash == whole->d.hash && r->d.cpu == whole->d.cpu;
	return r->retval == XDP_PASS && r->d.outcome == CPUSTEER_OUT_PASS && r->d.reason == want;
}

/* Each prefix of a real frame passes for the header it cuts short while
 * its IP header claims the whole datagram (RFC 791, RFC 8200: the IP
 * length, not the frame, says where a datagram ends). Once the length
 * field ends at the cut as well, it passes for the header the datagram
 * cuts short, and lands where the whole frame lands as soon as the flow
 * key is all there.
 */
static void truncated_real_frames_pass_or_redirect(void)
{
	struct env e;
	struct pkt_spec specs[NCUT_SPECS];
	__u8 frame[FRAME_CAP], part[FRAME_CAP];
	struct result whole, r;
	size_t len, cut;
	__u32 want;
	int i, fits, bad = 0;

	env_init(&e);
	ENV_START(&e);
	cut_specs(specs);
	for (i = 0; i < NCUT_SPECS; i++) {
		len = build(&specs[i], frame);
		whole = run_frame(&e, frame, len);
		expect_redirect(&whole, "whole frame");
		for (cut = ETH_HLEN; cut < len; cut++) {
			for (fits = 0; fits <= 1; fits++) {
				want = cut_outcome(&specs[i], cut, fits);
				r = run_frame(&e, part,
					      cut_frame(&specs[i], frame, cut, fits, part));
				if (!came_to(&r, want, &whole) && bad++ < 5)
					printf("#   frame %d cut at %zu of %zu, length field %s: expected %s %u; got err %d, verdict %u, outcome %u, reason %u, hash %#x vs %#x\n",
					       i, cut, len, fits ? "at the cut" : "as built",
					       want == STEERED ? "steered" : "pass reason", want,
					       r.err, r.retval, r.d.outcome, r.d.reason, r.d.hash,
					       whole.d.hash);
			}
		}
	}
	ASSERT_EQ(bad, 0, "truncated frames with the wrong verdict");
	env_stop(&e);
}

static void frame_shorter_than_ethernet_is_refused(void)
{
	struct env e;
	__u8 frame[ETH_HLEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 8, 0 };
	struct counts n;
	struct result r;
	char what[64];
	int len;

	env_init(&e);
	ENV_START(&e);
	for (len = 1; len < ETH_HLEN; len++) {
		r = run_frame(&e, frame, len);
		snprintf(what, sizeof(what), "%d-byte frame: test run refused", len);
		ASSERT_TRUE(r.err < 0, what);
	}
	r = run_frame(&e, frame, ETH_HLEN);
	expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, "bare 14-byte IPv4 Ethernet header");
	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.rx_packets, 1, "rx_packets counts only the frame the kernel took");
	env_stop(&e);
}

/* ---- non-IP ---- */

static void arp_passes_as_non_ip_by_default(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = run_spec(&e, &s);
	expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP");
	ASSERT_EQ(r.d.key.family, 0, "ARP key family");
	add_vlan(&s, 0x8100, 3);
	r = run_spec(&e, &s);
	expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP in a VLAN");
	s.nvlan = 0;
	s.ethertype = 0x88cc;
	r = run_spec(&e, &s);
	expect_pass(&r, CPUSTEER_PASS_NON_IP, "LLDP");
	env_stop(&e);
}

static void arp_redirects_to_non_ip_cpu(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	struct counts n;

	env_init(&e);
	env_opt(&e, "non-ip", "cpu:1");
	ENV_START(&e);
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = run_spec(&e, &s);
	expect_redirect(&r, "ARP with non-ip cpu:1");
	ASSERT_EQ(r.d.cpu, 1, "ARP's CPU");
	s.ethertype = 0x88cc;
	r = run_spec(&e, &s);
	expect_redirect(&r, "LLDP with non-ip cpu:1");
	ASSERT_EQ(r.d.cpu, 1, "LLDP's CPU");
	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.to[1], 2, "redirected to CPU 1");
	ASSERT_EQ(n.c.passed[CPUSTEER_PASS_NON_IP], 0, "passed as non_ip");
	env_stop(&e);
}

/* ---- multi-buffer frames ---- */

static struct result run_split_case(struct env *e, const struct split_case *c, int prog)
{
	__u8 frame[FRAME_CAP];
	size_t len = build_split_case(c, frame);

	return run_frame_how(e, frame, len, (struct run_how){ .prog = prog, .linear = c->linear });
}

static void multi_buffer_frames_steer_on_linear_headers(void)
{
	const struct split_case *c;
	struct env e;
	__u8 frame[FRAME_CAP];
	struct counts before, after, d;
	struct result whole, r;

	if (!kernel_splits_test_frames())
		SKIP(NO_SPLIT_FRAMES);
	env_init(&e);
	ENV_START(&e);
	for (c = split_cases; c < split_cases + nsplit_cases; c++) {
		ASSERT_EQ(read_counts(&e, &before), 0, "read counters");
		r = run_split_case(&e, c, 0);
		ASSERT_EQ(read_counts(&e, &after), 0, "read counters");
		if (c->reason != STEERED) {
			expect_pass(&r, c->reason, c->name);
			d = counts_since(&before, &after);
			expect_counted_as_passed(&d, c->reason, c->name);
			continue;
		}
		whole = run_frame(&e, frame, build_split_case(c, frame));
		expect_redirect(&whole, "the same frame in one buffer");
		expect_same_place(&whole, &r, c->name);
	}
	env_stop(&e);
}

/* ---- counters ---- */

static int cpumap_delete(struct env *e, __u32 cpu)
{
	return bpf_map_delete_elem(e->in.maps.cpu_map, &cpu);
}

/* Sends one frame as `how` says, in one test run; counts what the kernel
 * took, and checks the verdict the program gave.
 */
static struct result send_how(struct env *e, const __u8 *frame, size_t len, struct run_how how,
			      __u64 *sent, const char *what)
{
	struct result r = run_frame_how(e, frame, len, how);

	ASSERT_EQ(r.err, 0, what);
	if (!r.err)
		*sent += how.repeat ? how.repeat : 1;
	return r;
}

static struct result send_times(struct env *e, const __u8 *frame, size_t len, __u32 times,
				__u64 *sent, const char *what)
{
	return send_how(e, frame, len, (struct run_how){ .repeat = times }, sent, what);
}

static void counters_reconcile_with_frames_sent(void)
{
	__u64 want_pass[CPUSTEER_PASS_REASONS] = {}, want_err[CPUSTEER_ERRORS] = {};
	__u64 want_redir[2] = {}, sent = 0, sum = 0, want_vlan = 0, want_frag = 0, want_l3 = 0;
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct counts n;
	struct result r;
	__u32 times;
	size_t len;
	int i;

	env_init(&e);
	ENV_START(&e);

	/* Phase 1, both CPUs present: flows, some sent three times. */
	rng_seed(6);
	for (i = 0; i < 40; i++) {
		random_flow(&s, 0);
		times = i % 4 ? 1 : 3;
		r = send_times(&e, frame, build(&s, frame), times, &sent, "flow");
		expect_redirect(&r, "flow");
		if (r.d.cpu < 2)
			want_redir[r.d.cpu] += times;
	}
	/* Each pass reason, a known number of times. */
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = send_times(&e, frame, build(&s, frame), 3, &sent, "ARP");
	expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP");
	want_pass[CPUSTEER_PASS_NON_IP] += 3;

	pkt_spec_init(&s, 4, IPPROTO_UDP);
	add_vlan(&s, 0x8100, 1);
	len = build(&s, frame);
	r = send_times(&e, frame, ETH_HLEN + 2, 2, &sent, "VLAN tag cut short");
	expect_pass(&r, CPUSTEER_PASS_TRUNC_L2, "VLAN tag cut short");
	want_pass[CPUSTEER_PASS_TRUNC_L2] += 2;	/* a cut tag is not a seen tag */
	r = send_times(&e, frame, len, 5, &sent, "tagged flow");
	expect_redirect(&r, "tagged flow");
	want_vlan += 5;
	if (r.d.cpu < 2)
		want_redir[r.d.cpu] += 5;

	pkt_spec_init(&s, 4, IPPROTO_TCP);
	len = build(&s, frame);
	r = send_times(&e, frame, ETH_HLEN + 10, 4, &sent, "IPv4 header cut");
	expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, "IPv4 header cut");
	want_pass[CPUSTEER_PASS_TRUNC_L3] += 4;
	r = send_times(&e, frame, ETH_HLEN + 22, 5, &sent, "TCP cut in its ports");
	expect_pass(&r, CPUSTEER_PASS_BAD_LENGTH, "TCP cut in its ports");
	want_pass[CPUSTEER_PASS_BAD_LENGTH] += 5;
	pkt_set_ip_length(&s, frame, 22);
	r = send_times(&e, frame, ETH_HLEN + 22, 3, &sent, "datagram ends in the ports");
	expect_pass(&r, CPUSTEER_PASS_TRUNC_L4, "datagram ends in the ports");
	want_pass[CPUSTEER_PASS_TRUNC_L4] += 3;
	len = build(&s, frame);
	frame[ETH_HLEN] = 0x43;
	r = send_times(&e, frame, len, 6, &sent, "IHL 3");
	expect_pass(&r, CPUSTEER_PASS_BAD_L3, "IHL 3");
	want_pass[CPUSTEER_PASS_BAD_L3] += 6;

	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 9;
	for (i = 0; i < 9; i++)
		s.ext[i] = 60;
	r = send_times(&e, frame, build(&s, frame), 7, &sent, "9 ext headers");
	expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "9 ext headers");
	want_pass[CPUSTEER_PASS_EXT_HDRS] += 7;

	if (kernel_splits_test_frames()) {
		pkt_spec_init(&s, 6, IPPROTO_UDP);
		s.payload_len = 200;
		r = send_how(&e, frame, build(&s, frame),
			     (struct run_how){ .repeat = 2, .linear = ETH_HLEN + 20 }, &sent,
			     "IPv6 header on in a fragment");
		expect_pass(&r, CPUSTEER_PASS_HEADERS_IN_FRAGS, "IPv6 header on in a fragment");
		want_pass[CPUSTEER_PASS_HEADERS_IN_FRAGS] += 2;
	} else {
		printf("#   no split frame: %s\n", NO_SPLIT_FRAMES);
	}

	pkt_spec_init(&s, 4, IPPROTO_UDP);
	add_vlan(&s, 0x8100, 1);
	add_vlan(&s, 0x8100, 2);
	add_vlan(&s, 0x8100, 3);
	r = send_times(&e, frame, build(&s, frame), 8, &sent, "3 tags");
	expect_pass(&r, CPUSTEER_PASS_VLAN_DEPTH, "3 tags");
	want_pass[CPUSTEER_PASS_VLAN_DEPTH] += 8;
	want_vlan += 8;

	pkt_spec_init(&s, 4, IPPROTO_ICMP);
	r = send_times(&e, frame, build(&s, frame), 5, &sent, "ICMP");
	expect_redirect(&r, "ICMP");
	want_l3 += 5;
	if (r.d.cpu < 2)
		want_redir[r.d.cpu] += 5;

	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.fragment = true;
	s.frag_offset = 3;
	r = send_times(&e, frame, build(&s, frame), 4, &sent, "IPv6 fragment");
	expect_redirect(&r, "IPv6 fragment");
	want_frag += 4;
	if (r.d.cpu < 2)
		want_redir[r.d.cpu] += 4;

	/* Too short for the kernel: never reaches the program. */
	r = run_frame(&e, frame, 10);
	ASSERT_TRUE(r.err < 0, "10-byte frame refused");

	/* Phase 2: CPU 1 loses its cpumap entry; its flows become errors. */
	ASSERT_EQ(cpumap_delete(&e, 1), 0, "delete CPU 1's cpumap entry");
	rng_seed(6);
	for (i = 0; i < 40; i++) {
		random_flow(&s, 0);
		r = send_times(&e, frame, build(&s, frame), 1, &sent, "flow, CPU 1 gone");
		if (r.d.outcome == CPUSTEER_OUT_ERROR && r.d.reason < CPUSTEER_ERRORS)
			want_err[r.d.reason]++;
		else if (r.d.outcome == CPUSTEER_OUT_REDIRECT && r.d.cpu < 2)
			want_redir[r.d.cpu]++;
	}

	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.rx_packets, sent, "rx_packets");
	sum += n.redirected;
	for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
		sum += n.c.passed[i];
	for (i = 0; i < CPUSTEER_ERRORS; i++)
		sum += n.c.errors[i];
	ASSERT_EQ(sum, n.c.rx_packets, "redirected + passed + errors");
	ASSERT_EQ(n.to[0], want_redir[0], "redirected to CPU 0");
	ASSERT_EQ(n.to[1], want_redir[1], "redirected to CPU 1");
	for (i = 0; i < CPUSTEER_PASS_REASONS; i++) {
		char what[48];

		snprintf(what, sizeof(what), "passed[%d]", i);
		ASSERT_EQ(n.c.passed[i], want_pass[i], what);
	}
	ASSERT_TRUE(want_err[CPUSTEER_ERR_NO_CPUMAP_ENTRY] > 0, "some flows hit CPU 1");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], want_err[CPUSTEER_ERR_NO_CPUMAP_ENTRY],
		  "errors[no_cpumap_entry]");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_BAD_BUCKET], 0, "errors[bad_bucket]");
	ASSERT_EQ(n.c.seen_vlan, want_vlan, "seen_vlan");
	ASSERT_EQ(n.c.seen_fragments, want_frag, "seen_fragments");
	ASSERT_EQ(n.c.seen_l3_only, want_l3, "seen_l3_only");
	env_stop(&e);
}

/* ---- failures of the table ---- */

static void bucket_without_cpumap_entry_passes_as_error(void)
{
	struct env e;
	struct pkt_spec s;
	struct result r;
	struct counts n;
	__u32 on1 = 0, on0 = 0, bad = 0, i;

	env_init(&e);
	ENV_START(&e);
	ASSERT_EQ(cpumap_delete(&e, 1), 0, "delete CPU 1's cpumap entry");
	rng_seed(8);
	for (i = 0; i < 200; i++) {
		random_flow(&s, 0);
		r = run_spec(&e, &s);
		if (r.err) {
			bad++;
			continue;
		}
		if (e.table[r.d.bucket] == 1) {
			on1++;
			bad += r.retval != XDP_PASS || r.d.outcome != CPUSTEER_OUT_ERROR ||
			       r.d.reason != CPUSTEER_ERR_NO_CPUMAP_ENTRY || r.d.cpu != 1;
		} else {
			on0++;
			bad += r.retval != XDP_REDIRECT || r.d.cpu != 0;
		}
	}
	ASSERT_EQ(bad, 0, "flows with the wrong verdict or record");
	ASSERT_TRUE(on1 > 0 && on0 > 0, "flows on both CPUs' buckets");
	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], on1, "errors[no_cpumap_entry]");
	ASSERT_EQ(n.to[1], 0, "redirected to CPU 1");
	ASSERT_EQ(n.to[0], on0, "redirected to CPU 0");
	env_stop(&e);
}

/* A table entry naming a CPU the machine does not have is passed and
 * counted as a bad bucket, never redirected or dropped.
 */
static void bucket_naming_unknown_cpu_passes_as_error(void)
{
	static const struct { __u32 cpu, err; } cases[] = {
		{ 2, CPUSTEER_ERR_BAD_BUCKET },		/* past this machine's CPUs */
		{ CPUSTEER_MAX_CPUS, CPUSTEER_ERR_BAD_BUCKET },
		{ BUCKET_UNOWNED, CPUSTEER_ERR_BAD_BUCKET },
	};
	struct env e;
	struct pkt_spec s;
	struct result r;
	struct counts n;
	char what[64];
	int fd;
	__u32 i, b, want[CPUSTEER_ERRORS] = {};

	env_init(&e);
	env_opt(&e, "buckets", "2");
	ENV_START(&e);
	fd = e.in.maps.bucket_table;
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (b = 0; b < 2; b++)
			ASSERT_EQ(bpf_map_update_elem(fd, &b, &cases[i].cpu, 0), 0, "write bucket");
		r = run_spec(&e, &s);
		snprintf(what, sizeof(what), "bucket naming CPU %u", cases[i].cpu);
		ASSERT_EQ(r.err, 0, what);
		ASSERT_EQ(r.retval, XDP_PASS, what);
		ASSERT_EQ(r.d.outcome, CPUSTEER_OUT_ERROR, what);
		ASSERT_EQ(r.d.reason, cases[i].err, what);
		want[cases[i].err]++;
	}
	ASSERT_EQ(read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], want[CPUSTEER_ERR_NO_CPUMAP_ENTRY],
		  "errors[no_cpumap_entry]");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_BAD_BUCKET], want[CPUSTEER_ERR_BAD_BUCKET],
		  "errors[bad_bucket]");
	env_stop(&e);
}

/* ---- the fast program ---- */

/* A frame for both programs. */
struct sample {
	char name[96];
	__u8 data[FRAME_CAP];
	__u32 len;
	__u32 linear;		/* as in struct run_how */
};

struct sample_set {
	struct sample *v;
	size_t n, cap;
};

/* A new sample, named; the caller fills in its frame. NULL when out of
 * memory (counted as a failure).
 */
static struct sample *sample_add(struct sample_set *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct sample *sample_add(struct sample_set *set, const char *fmt, ...)
{
	struct sample *smp;
	va_list ap;

	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 256;
		struct sample *v = realloc(set->v, cap * sizeof(*v));

		if (!v) {
			printf("#   out of memory for samples\n");
			tu_failures++;
			return NULL;
		}
		set->v = v;
		set->cap = cap;
	}
	smp = &set->v[set->n++];
	memset(smp, 0, sizeof(*smp));
	va_start(ap, fmt);
	vsnprintf(smp->name, sizeof(smp->name), fmt, ap);
	va_end(ap);
	return smp;
}

static void add_spec_sample(struct sample_set *set, const struct pkt_spec *s, const char *name)
{
	struct sample *smp = sample_add(set, "%s", name);

	if (smp)
		smp->len = build(s, smp->data);
}

/* Every frame of the cut_specs() cut at every length, with the length
 * field as built and at the cut.
 */
static void add_cut_samples(struct sample_set *set)
{
	struct pkt_spec specs[NCUT_SPECS];
	__u8 frame[FRAME_CAP];
	struct sample *smp;
	size_t len, cut;
	int i, fits;

	cut_specs(specs);
	for (i = 0; i < NCUT_SPECS; i++) {
		len = build(&specs[i], frame);
		for (cut = ETH_HLEN; cut <= len; cut++) {
			for (fits = 0; fits <= 1; fits++) {
				smp = sample_add(set, "frame %d cut at %zu of %zu, length %s", i,
						 cut, len, fits ? "at the cut" : "as built");
				if (!smp)
					continue;
				smp->len = cut_frame(&specs[i], frame, cut, fits, smp->data);
			}
		}
	}
}

static void add_length_samples(struct sample_set *set)
{
	const struct length_case *c;
	const struct split_case *sc;
	struct sample *smp;

	for (c = length_cases; c < length_cases + nlength_cases; c++) {
		smp = sample_add(set, "%s", c->name);
		if (smp)
			smp->len = build_length_case(c, smp->data);
	}
	for (sc = split_cases; sc < split_cases + nsplit_cases; sc++) {
		if (!kernel_splits_test_frames())
			break;
		smp = sample_add(set, "%s", sc->name);
		if (smp) {
			smp->len = build_split_case(sc, smp->data);
			smp->linear = sc->linear;
		}
	}
}

static void add_random_samples(struct sample_set *set)
{
	struct sample *smp;
	size_t t;
	int len, kind;

	rng_seed(9);
	for (len = ETH_HLEN; len <= 60; len++) {
		for (t = 0; t < ARRAY_SIZE(random_types); t++) {
			for (kind = 0; kind < 3; kind++) {
				smp = sample_add(set, "%d random bytes, type %#x, kind %d", len,
						 random_types[t], kind);
				if (smp) {
					random_frame(smp->data, len, random_types[t], kind);
					smp->len = len;
				}
			}
		}
	}
}

/* Whole frames of each kind the parser tells apart. */
static void add_whole_samples(struct sample_set *set)
{
	struct pkt_spec s;
	int i;

	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	add_spec_sample(set, &s, "ARP");
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	add_vlan(&s, 0x8100, 1);
	add_spec_sample(set, &s, "802.1Q IPv4 UDP");
	add_vlan(&s, 0x8100, 2);
	add_spec_sample(set, &s, "two tags");
	add_vlan(&s, 0x8100, 3);
	add_spec_sample(set, &s, "three tags");
	pkt_spec_init(&s, 4, IPPROTO_TCP);
	s.ipv4_options_len = 40;
	add_spec_sample(set, &s, "IPv4 TCP, IHL 15");
	s.fragment = true;
	s.more_fragments = true;
	add_spec_sample(set, &s, "IPv4 first fragment");
	pkt_spec_init(&s, 4, IPPROTO_SCTP);
	add_spec_sample(set, &s, "IPv4 SCTP");
	pkt_spec_init(&s, 6, IPPROTO_TCP);
	add_spec_sample(set, &s, "IPv6 TCP");
	s.fragment = true;
	add_spec_sample(set, &s, "IPv6 atomic fragment");
	s.frag_offset = 10;
	add_spec_sample(set, &s, "IPv6 last fragment");
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 9;
	for (i = 0; i < s.next; i++)
		s.ext[i] = ext_cycle[i % 3];
	add_spec_sample(set, &s, "IPv6, 9 extension headers");
	s.next = 8;
	add_spec_sample(set, &s, "IPv6, 8 extension headers");
	pkt_spec_init(&s, 6, 59);	/* No Next Header */
	add_spec_sample(set, &s, "IPv6, no next header");
}

/* Runs the sample through classify, then the fast program: the same
 * verdict, the same counters moved, and no record from the fast one.
 * Adds what classify moved to `total`; says what differed if `report`.
 */
static bool programs_agree_on(struct env *e, const struct sample *smp, struct counts *total,
			      bool report)
{
	struct run_how fast = { .prog = steer_fd(e), .linear = smp->linear };
	struct run_how slow = { .linear = smp->linear };
	struct counts c0, c1, c2, by_classify, by_steer;
	struct result rc, rs;
	char a[256], b[256];
	bool read = !read_counts(e, &c0);
	size_t i;

	rc = run_frame_how(e, smp->data, smp->len, slow);
	read = !read_counts(e, &c1) && read;
	rs = run_frame_how(e, smp->data, smp->len, fast);
	read = !read_counts(e, &c2) && read;
	by_classify = counts_since(&c0, &c1);
	by_steer = counts_since(&c1, &c2);
	for (i = 0; i < sizeof(*total) / sizeof(__u64); i++)
		((__u64 *)total)[i] += ((__u64 *)&by_classify)[i];
	if (read && !rc.err && !rs.err && rc.retval == rs.retval &&
	    same_counts(&by_classify, &by_steer) && rc.d.outcome != ~0u && rs.d.outcome == ~0u)
		return true;
	if (report)
		printf("#   %s: classify: err %d, verdict %u, moved %s; steer: err %d, verdict %u, moved %s, %s\n",
		       smp->name, rc.err, rc.retval, format_counts(&by_classify, a, sizeof(a)),
		       rs.err, rs.retval, format_counts(&by_steer, b, sizeof(b)),
		       rs.d.outcome == ~0u ? "no record" : "wrote a record");
	return false;
}

static int disagreements(struct env *e, const struct sample_set *set, struct counts *total)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < set->n; i++)
		bad += !programs_agree_on(e, &set->v[i], total, bad < 5);
	return bad;
}

/* Every sample under the configuration `e` was given, before and after
 * CPU 1 loses its cpumap entry.
 */
static void agree_under(struct env *e, const struct sample_set *set, struct counts *total,
			const char *config)
{
	char what[96];

	ENV_START(e);
	snprintf(what, sizeof(what), "frames decided apart, %s", config);
	ASSERT_EQ(disagreements(e, set, total), 0, what);
	ASSERT_EQ(cpumap_delete(e, 1), 0, "delete CPU 1's cpumap entry");
	snprintf(what, sizeof(what), "frames decided apart, %s, CPU 1 gone", config);
	ASSERT_EQ(disagreements(e, set, total), 0, what);
	env_stop(e);
}

/* The fast program is the classify program without its record: for every
 * kind of frame, steered, passed for any reason or failed, the two must
 * decide alike.
 */
static void fast_program_agrees_with_classify(void)
{
	struct sample_set set = {};
	struct counts total = {};
	struct env e;
	char what[48];
	int i;

	add_cut_samples(&set);
	add_length_samples(&set);
	add_random_samples(&set);
	add_whole_samples(&set);
	printf("#   %zu frames\n", set.n);

	env_init(&e);
	agree_under(&e, &set, &total, "siphash13");
	env_init(&e);
	env_opt(&e, "hash", "jhash");
	env_opt(&e, "symmetric", NULL);
	env_opt(&e, "buckets", "61");
	env_opt(&e, "non-ip", "cpu:1");
	agree_under(&e, &set, &total, "jhash, symmetric, non-IP to CPU 1");
	free(set.v);

	/* The frames must come to every outcome, or agreement says little. */
	for (i = 0; i < CPUSTEER_PASS_REASONS; i++) {
		if (i == CPUSTEER_PASS_HEADERS_IN_FRAGS && !kernel_splits_test_frames())
			continue;
		snprintf(what, sizeof(what), "frames passed for reason %d", i);
		ASSERT_TRUE(total.c.passed[i] > 0, what);
	}
	ASSERT_TRUE(total.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY] > 0, "frames failed");
	ASSERT_TRUE(total.to[0] > 0 && total.to[1] > 0, "frames redirected to each CPU");
}

/* ---- configuration changes ---- */

/* The configuration that a key and a bucket count give, the rest default. */
static int config_of(const char *key, const char *buckets, struct cpusteer_config *cfg)
{
	struct env tmp;
	int err;

	env_init(&tmp);
	env_opt(&tmp, "key", key);
	env_opt(&tmp, "buckets", buckets);
	err = steer_opts_finish(&tmp.o);
	*cfg = tmp.o.cfg;
	return err;
}

struct config_flipper {
	struct steer_instance *in;
	const struct cpusteer_config *cfg;	/* two, written in turn */
	int stop;
	unsigned long flips;
	int err;
};

/* Writes the two configurations in turn, as `cpusteer set` does, until
 * told to stop.
 */
static void *flip_configs(void *arg)
{
	struct config_flipper *f = arg;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED) && !f->err) {
		f->err = instance_write_config(f->in, &f->cfg[f->flips % 2]);
		f->flips++;
	}
	return NULL;
}

struct placement {
	__u32 hash, bucket;
};

static bool placed_as(const struct result *r, const struct placement *p)
{
	return !r->err && r->retval == XDP_REDIRECT && r->d.hash == p->hash &&
	       r->d.bucket == p->bucket;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

#define FLOOD_SECONDS 1.5

/* While the configuration changes under it, every packet must be decided
 * by one whole configuration: a hash under one key put in a bucket of the
 * other's bucket count (or a key half old, half new) is a torn read.
 */
static void config_change_never_tears_a_decision(void)
{
	struct cpusteer_config cfg[2];
	struct config_flipper flipper = {};
	struct placement alone[2];
	unsigned long decisions = 0, seen[2] = {}, torn = 0;
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct result r;
	struct timespec t0;
	pthread_t writer;
	size_t len;
	int i;

	env_init(&e);
	ENV_START(&e);	/* 512 buckets: the table serves both configurations */
	ASSERT_EQ(config_of(KEY_A, "64", &cfg[0]), 0, "configuration A");
	ASSERT_EQ(config_of(KEY_B, "512", &cfg[1]), 0, "configuration B");
	/* IPv6: its longer hash message keeps the key and the bucket count
	 * further apart in time, where a torn read would show.
	 */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	len = build(&s, frame);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(instance_write_config(&e.in, &cfg[i]), 0, "write a configuration");
		r = run_frame(&e, frame, len);
		expect_redirect(&r, "the frame under one configuration");
		alone[i] = (struct placement){ r.d.hash, r.d.bucket };
	}
	ASSERT_NE(alone[0].hash, alone[1].hash, "the frame's hash under A and B");
	ASSERT_NE(cpusteer_bucket(alone[0].hash, cfg[1].nbuckets), alone[0].bucket,
		  "A's hash in B's buckets: a torn bucket would show");
	ASSERT_NE(cpusteer_bucket(alone[1].hash, cfg[0].nbuckets), alone[1].bucket,
		  "B's hash in A's buckets: a torn bucket would show");

	flipper.in = &e.in;
	flipper.cfg = cfg;
	if (pthread_create(&writer, NULL, flip_configs, &flipper)) {
		ASSERT_TRUE(false, "start the configuration writer");
		env_stop(&e);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seconds_since(&t0) < FLOOD_SECONDS) {
		r = run_frame(&e, frame, len);
		decisions++;
		if (placed_as(&r, &alone[0]))
			seen[0]++;
		else if (placed_as(&r, &alone[1]))
			seen[1]++;
		else if (torn++ < 5)
			printf("#   decision %lu: err %d, verdict %u, hash %#x, bucket %u\n",
			       decisions, r.err, r.retval, r.d.hash, r.d.bucket);
	}
	__atomic_store_n(&flipper.stop, 1, __ATOMIC_RELAXED);
	pthread_join(writer, NULL);
	printf("#   %lu configuration flips, %lu decisions: %lu under A, %lu under B, %lu torn\n",
	       flipper.flips, decisions, seen[0], seen[1], torn);
	ASSERT_EQ(flipper.err, 0, "write the configurations");
	ASSERT_EQ(torn, 0, "decisions under neither configuration");
	ASSERT_TRUE(flipper.flips >= 10, "configuration flips during the flood");
	ASSERT_TRUE(seen[0] > 0 && seen[1] > 0, "decisions under each configuration");
	env_stop(&e);
}

/* ---- the no-touch floor ---- */

/* The target CPU of one redirect, from the counters it moved: the
 * no-touch floor keeps no record. -1 when the frame was not redirected to
 * CPU 0 or 1 alone.
 */
static int redirect_target(const struct counts *d)
{
	struct counts want = {};
	int cpu;

	want.c.rx_packets = 1;
	want.redirected = 1;
	for (cpu = 0; cpu < 2; cpu++) {
		memset(want.to, 0, sizeof(want.to));
		want.to[cpu] = 1;
		if (same_counts(d, &want))
			return cpu;
	}
	return -1;
}

/* Owners of 8 buckets whose 8 rotations all differ (a de Bruijn
 * sequence), so that a run of CPUs says which bucket each frame took.
 */
static const __u32 rotation_table[8] = { 0, 0, 0, 1, 0, 1, 1, 1 };

static void env_write_table(struct env *e, const __u32 *owners, __u32 n)
{
	__u32 b;

	for (b = 0; b < n; b++) {
		ASSERT_EQ(bpf_map_update_elem(e->in.maps.bucket_table, &b, &owners[b], 0), 0,
			  "write bucket");
		e->table[b] = owners[b];
	}
}

/* The bucket the run of CPUs `seq` started on, walking the table one
 * bucket a frame; -1 if it walks the table no other way.
 */
static int round_robin_start(const int *seq, int n, const __u32 *table, int nbuckets)
{
	int start, i;

	for (start = 0; start < nbuckets; start++) {
		for (i = 0; i < n && seq[i] == (int)table[(start + i) % nbuckets]; i++)
			;
		if (i == n)
			return start;
	}
	return -1;
}

static void notouch_redirects_round_robin_over_buckets(void)
{
	struct env e;
	__u8 frame[ETH_HLEN + 4] = { 0 };	/* never read: need not parse */
	struct result r;
	struct counts before, after, d;
	cpu_set_t old, one;
	char moved[256];
	int seq[64], per_cpu[2] = {}, bad = 0, recorded = 0, i;
	bool pinned;

	env_init(&e);
	env_opt(&e, "buckets", "8");
	ENV_START(&e);
	env_write_table(&e, rotation_table, 8);
	/* The round robin runs on a per-CPU counter: stay on one CPU. */
	pinned = !sched_getaffinity(0, sizeof(old), &old) && sched_getcpu() >= 0;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	pinned = pinned && !sched_setaffinity(0, sizeof(one), &one);
	ASSERT_TRUE(pinned, "pin the test to the CPU it runs on");
	for (i = 0; i < 64; i++) {
		if (read_counts(&e, &before))
			bad++;
		r = run_frame_how(&e, frame, sizeof(frame),
				  (struct run_how){ .prog = notouch_fd(&e) });
		if (read_counts(&e, &after))
			bad++;
		d = counts_since(&before, &after);
		seq[i] = redirect_target(&d);
		recorded += r.d.outcome != ~0u;
		if ((r.err || r.retval != XDP_REDIRECT || seq[i] < 0) && bad++ < 3)
			printf("#   run %d: err %d, verdict %u, counters moved: %s\n", i, r.err,
			       r.retval, format_counts(&d, moved, sizeof(moved)));
		if (seq[i] >= 0)
			per_cpu[seq[i]]++;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	ASSERT_EQ(bad, 0, "notouch runs not redirected to CPU 0 or 1");
	ASSERT_EQ(recorded, 0, "notouch runs that wrote a decision record");
	ASSERT_TRUE(round_robin_start(seq, 64, rotation_table, 8) >= 0,
		    "consecutive frames on consecutive buckets' CPUs");
	ASSERT_EQ(per_cpu[0], 32, "frames to CPU 0");
	ASSERT_EQ(per_cpu[1], 32, "frames to CPU 1");
	env_stop(&e);
}

static const struct tu_test tests[] = {
	TU_TEST(vlan_tagged_frame_lands_like_untagged),
	TU_TEST(qinq_frame_lands_like_untagged),
	TU_TEST(three_vlan_tags_pass_as_vlan_depth),
	TU_TEST(ipv4_options_do_not_change_hash),
	TU_TEST(ipv4_bad_ihl_or_version_passes_as_bad_l3),
	TU_TEST(ipv4_truncated_header_passes),
	TU_TEST(ipv6_ext_headers_do_not_change_hash),
	TU_TEST(ipv6_ext_header_length_field_is_honoured),
	TU_TEST(ipv6_nine_ext_headers_pass_as_ext_headers),
	TU_TEST(ipv6_truncated_ext_header_passes),
	TU_TEST(malformed_ip_lengths_pass_with_their_reason),
	TU_TEST(padded_frame_lands_like_unpadded),
	TU_TEST(ipv6_jumbogram_lands_like_its_datagram),
	TU_TEST(ttl_tos_id_and_flow_label_do_not_move_flow),
	TU_TEST(ipv4_fragments_of_one_datagram_share_cpu),
	TU_TEST(ipv6_fragments_of_one_datagram_share_cpu),
	TU_TEST(ipv6_atomic_fragment_lands_like_whole_datagram),
	TU_TEST(sctp_ports_are_parsed),
	TU_TEST(icmp_hashes_on_addresses_and_protocol),
	TU_TEST(same_flow_in_any_wrapping_lands_on_one_cpu),
	TU_TEST(symmetric_mode_maps_both_directions_alike),
	TU_TEST(asymmetric_mode_tells_directions_apart),
	TU_TEST(key_change_moves_about_half_of_flows),
	TU_TEST(same_key_gives_identical_placement),
	TU_TEST(flow_cpu_is_table_entry_of_its_bucket),
	TU_TEST(flow_hash_known_answers),
	TU_TEST(weights_3_1_give_cpu0_three_quarters),
	TU_TEST(ports_spread_flows_of_two_hosts_siphash13),
	TU_TEST(ports_spread_flows_of_two_hosts_jhash),
	TU_TEST(random_short_frames_pass_or_redirect),
	TU_TEST(truncated_real_frames_pass_or_redirect),
	TU_TEST(frame_shorter_than_ethernet_is_refused),
	TU_TEST(arp_passes_as_non_ip_by_default),
	TU_TEST(arp_redirects_to_non_ip_cpu),
	TU_TEST(multi_buffer_frames_steer_on_linear_headers),
	TU_TEST(counters_reconcile_with_frames_sent),
	TU_TEST(bucket_without_cpumap_entry_passes_as_error),
	TU_TEST(bucket_naming_unknown_cpu_passes_as_error),
	TU_TEST(fast_program_agrees_with_classify),
	TU_TEST(config_change_never_tears_a_decision),
	TU_TEST(notouch_redirects_round_robin_over_buckets),
};

int main(void)
{
	return steer_tests_main(tests, ARRAY_SIZE(tests));
}
