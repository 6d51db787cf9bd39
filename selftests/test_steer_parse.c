// SPDX-License-Identifier: GPL-2.0
/* What the steering program's parser makes of the headers of a frame:
 * VLAN tags, the IPv4 header and its options, IPv6 extension headers,
 * fragments, the L4 protocols and non-IP frames. A flow must land on one
 * CPU whatever wraps it (tags, options, extension headers) and whatever
 * changes from one of its packets to the next (TTL, TOS, IP ID, flow
 * label), and a header the parser cannot walk must pass with its reason.
 *
 * A file of its own because these are the tests of the parse (bpf/parse.h),
 * read apart from the hash (test_steer_hash), frames whose lengths are at
 * odds with their headers (test_steer_lengths) and the programs' counters
 * (test_steer_prog). The instance and the frame runs are steer_fixture.h.
 */
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include "steer_fixture.h"

/* ---- VLAN ---- */

static void vlan_tagged_frame_lands_like_untagged(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain, tagged;
	int fam;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_UDP);
		plain = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&plain, "untagged");
		fixture_add_vlan(&s, 0x8100, 100);
		tagged = fixture_run_spec(&e, &s);
		fixture_expect_same_place(&plain, &tagged, fam == 4 ? "802.1Q IPv4" : "802.1Q IPv6");
		ASSERT_TRUE(fixture_same_key(&plain.d.key, &tagged.d.key), "tag kept out of the key");
		/* Another VLAN ID is the same flow too. */
		s.vlan_tci[0] = 4000;
		tagged = fixture_run_spec(&e, &s);
		fixture_expect_same_place(&plain, &tagged, "802.1Q, other VLAN ID");
	}
	fixture_stop(&e);
}

/* Stacks of one to four tags, each TPID at each position, in front of
 * IPv4 and IPv6: the tags never reach the hash, and each frame is counted
 * as tagged.
 */
static void vlan_stacks_land_like_untagged(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain, tagged;
	struct fixture_counts n;
	int fam, depth, first, stacks = 0;
	char what[64];

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_TCP);
		plain = fixture_run_spec(&e, &s);
		ASSERT_EQ(plain.d.path, 0, "untagged: nothing in the recorded path");
		for (depth = 1; depth <= CPUSTEER_MAX_VLAN_TAGS; depth++) {
			for (first = 0; first < 4; first++) {
				pkt_spec_init(&s, fam, IPPROTO_TCP);
				fixture_add_vlan_stack(&s, depth, first);
				tagged = fixture_run_spec(&e, &s);
				snprintf(what, sizeof(what), "IPv%d, %d tags from TPID %#x", fam,
					 depth, fixture_vlan_tpids[first]);
				fixture_expect_same_place(&plain, &tagged, what);
				ASSERT_EQ(tagged.d.path, CPUSTEER_PATH_VLAN, what);
				stacks++;
			}
		}
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.seen_vlan, stacks, "seen_vlan");
	fixture_stop(&e);
}

/* One tag more than the parser walks, of whatever TPIDs, passes as
 * vlan_depth, and is counted as tagged: its tags were seen whole.
 */
static void five_vlan_tags_pass_as_vlan_depth(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture_counts n;
	int first;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (first = 0; first < 4; first++) {
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		fixture_add_vlan_stack(&s, CPUSTEER_MAX_VLAN_TAGS + 1, first);
		r = fixture_run_spec(&e, &s);
		fixture_expect_pass(&r, CPUSTEER_PASS_VLAN_DEPTH, "five tags");
		ASSERT_EQ(r.d.path, CPUSTEER_PATH_VLAN, "five tags: the path records tags");
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.passed[CPUSTEER_PASS_VLAN_DEPTH], 4, "vlan_depth counter");
	ASSERT_EQ(n.c.seen_vlan, 4, "seen_vlan");
	fixture_stop(&e);
}

/* ---- PPPoE ---- */

/* The frame of `s` lands where `plain` did, hashed on the same flow key:
 * what wraps the datagram never reaches the hash. The record names what
 * was walked: tags where `s` has some, and `path`.
 */
static void expect_lands_with_the_same_key(struct fixture *e, const struct fixture_result *plain,
					   const struct pkt_spec *s, __u32 path, const char *what)
{
	struct fixture_result r = fixture_run_spec(e, s);

	fixture_expect_same_place(plain, &r, what);
	ASSERT_TRUE(fixture_same_key(&plain->d.key, &r.d.key), what);
	ASSERT_EQ(r.d.path, path | (s->nvlan ? CPUSTEER_PATH_VLAN : 0), what);
}

/* IPv4 and IPv6 in a PPPoE session, behind stacks of 0 to 4 tags: the
 * session header never reaches the hash, and each frame is counted as
 * PPPoE.
 */
static void pppoe_sessions_land_like_bare_ip(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain;
	struct fixture_counts n;
	int fam, depth, frames = 0;
	char what[64];

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_UDP);
		plain = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&plain, "bare");
		for (depth = 0; depth <= CPUSTEER_MAX_VLAN_TAGS; depth++) {
			pkt_spec_init(&s, fam, IPPROTO_UDP);
			fixture_add_vlan_stack(&s, depth, depth);
			s.pppoe = true;
			s.pppoe_session = 0x1234 + depth;
			snprintf(what, sizeof(what), "IPv%d in PPPoE behind %d tags", fam, depth);
			expect_lands_with_the_same_key(&e, &plain, &s, CPUSTEER_PATH_PPPOE, what);
			frames++;
		}
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.seen_pppoe, frames, "seen_pppoe");
	ASSERT_EQ(n.c.path_steered[CPUSTEER_PATH_KIND_PPPOE], frames, "path_steered[pppoe]");
	ASSERT_EQ(n.c.path_steered[CPUSTEER_PATH_KIND_VLAN], 2 * CPUSTEER_MAX_VLAN_TAGS,
		  "path_steered[vlan]: the tagged ones");
	ASSERT_EQ(n.c.path_passed[CPUSTEER_PATH_KIND_PPPOE], 0, "path_passed[pppoe]");
	fixture_stop(&e);
}

/* A PPPoE frame that holds no IP datagram cpusteer reads is non_ip: the
 * PPP control protocols, another version, type or code, and the
 * discovery stage's EtherType. A session header cut short is
 * truncated_l2.
 */
static void pppoe_without_ip_passes_as_non_ip(void)
{
	static const struct {
		const char *what;
		__u16 ppp_proto;
		int byte;	/* of the session header to set, -1: none */
		__u8 value;
	} cases[] = {
		{ "LCP", 0xc021, -1, 0 },
		{ "IPCP", 0x8021, -1, 0 },
		{ "IPV6CP", 0x8057, -1, 0 },
		{ "version 2", 0, 0, 0x21 },
		{ "type 2", 0, 0, 0x12 },
		{ "code PADT", 0, 1, 0xa7 },
	};
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture_counts n;
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len, i;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		s.pppoe = true;
		s.ppp_proto = cases[i].ppp_proto;
		len = fixture_build(&s, frame);
		if (cases[i].byte >= 0)
			frame[ETH_HLEN + cases[i].byte] = cases[i].value;
		r = fixture_run_frame(&e, frame, len);
		fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, cases[i].what);
		ASSERT_EQ(r.d.path, CPUSTEER_PATH_PPPOE, cases[i].what);
	}
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.pppoe = true;
	len = fixture_build(&s, frame);
	frame[12] = 0x88;
	frame[13] = 0x63;	/* the discovery stage */
	r = fixture_run_frame(&e, frame, len);
	fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, "PPPoE discovery");
	ASSERT_EQ(r.d.path, 0, "PPPoE discovery: no session in the path");
	frame[13] = 0x64;
	for (len = ETH_HLEN; len < ETH_HLEN + 8; len++) {
		r = fixture_run_frame(&e, frame, len);
		fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L2, "session header cut short");
		ASSERT_EQ(r.d.path, 0, "session header cut short: not in the path");
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.seen_pppoe, ARRAY_SIZE(cases), "seen_pppoe: whole session headers only");
	ASSERT_EQ(n.c.path_passed[CPUSTEER_PATH_KIND_PPPOE], ARRAY_SIZE(cases),
		  "path_passed[pppoe]: whole session headers only");
	ASSERT_EQ(n.c.path_steered[CPUSTEER_PATH_KIND_PPPOE], 0, "path_steered[pppoe]");
	fixture_stop(&e);
}

/* ---- MPLS ---- */

/* IPv4 and IPv6 below one to eight labels, entropy labels among them,
 * behind 0 to 2 tags: the labels never reach the hash, and each frame is
 * counted as MPLS.
 */
static void mpls_stacks_land_like_bare_ip(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain;
	struct fixture_counts n;
	int fam, labels, i, frames = 0;
	char what[64];

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_TCP);
		plain = fixture_run_spec(&e, &s);
		for (labels = 1; labels <= CPUSTEER_MAX_MPLS_LABELS; labels++) {
			pkt_spec_init(&s, fam, IPPROTO_TCP);
			fixture_add_vlan_stack(&s, labels % 3, labels);
			s.nmpls = labels;
			for (i = 0; i < labels; i++)	/* 7: the entropy label indicator */
				s.mpls_label[i] = i % 2 ? 7 : 16000 + labels * 10 + i;
			snprintf(what, sizeof(what), "IPv%d below %d labels", fam, labels);
			expect_lands_with_the_same_key(&e, &plain, &s, CPUSTEER_PATH_MPLS, what);
			frames++;
		}
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.seen_mpls, frames, "seen_mpls");
	ASSERT_EQ(n.c.path_steered[CPUSTEER_PATH_KIND_MPLS], frames, "path_steered[mpls]");
	fixture_stop(&e);
}

/* A stack without its bottom in eight labels is mpls_depth; below the
 * bottom, a pseudowire control word or an Ethernet frame is mpls_payload,
 * and nothing at all truncated_l3; a label cut short is truncated_l2.
 */
static void mpls_limits_pass_with_their_reason(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len, l3;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.nmpls = CPUSTEER_MAX_MPLS_LABELS + 1;
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_MPLS_DEPTH, "nine labels");
	pkt_spec_init(&s, 0, 0);
	s.nmpls = 2;
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_MPLS_PAYLOAD, "control word of zeros");
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.nmpls = 1;
	len = fixture_build(&s, frame);
	l3 = pkt_l3_offset(&s);
	frame[l3] = 0x02;	/* an Ethernet frame's locally administered MAC */
	r = fixture_run_frame(&e, frame, len);
	fixture_expect_pass(&r, CPUSTEER_PASS_MPLS_PAYLOAD, "Ethernet below the labels");
	r = fixture_run_frame(&e, frame, l3);
	fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, "nothing below the labels");
	for (len = ETH_HLEN; len < l3; len++) {
		r = fixture_run_frame(&e, frame, len);
		fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L2, "label cut short");
	}
	fixture_stop(&e);
}

/* ---- IPv4 header ---- */

static void ipv4_options_do_not_change_hash(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain, r;
	char what[64];
	int ihl;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	plain = fixture_run_spec(&e, &s);
	fixture_expect_redirect(&plain, "ihl 5");
	for (ihl = 6; ihl <= 15; ihl++) {
		s.ipv4_options_len = (ihl - 5) * 4;
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "ihl %d", ihl);
		fixture_expect_same_place(&plain, &r, what);
		ASSERT_EQ(r.d.key.sport, 1000, what);
		ASSERT_EQ(r.d.key.dport, 2000, what);
	}
	fixture_stop(&e);
}

static void ipv4_bad_ihl_or_version_passes_as_bad_l3(void)
{
	static const __u8 bad_first_byte[] = {
		0x40, 0x41, 0x42, 0x43, 0x44,	/* IHL below 5 */
		0x05, 0x35, 0x55, 0x65, 0xf5,	/* version not 4 */
	};
	struct fixture e;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_result r;
	char what[64];
	size_t len, i;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	len = fixture_build(&s, frame);
	for (i = 0; i < sizeof(bad_first_byte); i++) {
		frame[ETH_HLEN] = bad_first_byte[i];
		r = fixture_run_frame(&e, frame, len);
		snprintf(what, sizeof(what), "IPv4 first byte %#04x", bad_first_byte[i]);
		fixture_expect_pass(&r, CPUSTEER_PASS_BAD_L3, what);
	}
	/* The same check on the IPv6 side: version 4 under the IPv6 type. */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	len = fixture_build(&s, frame);
	frame[ETH_HLEN] = 0x40 | (frame[ETH_HLEN] & 0x0f);
	r = fixture_run_frame(&e, frame, len);
	fixture_expect_pass(&r, CPUSTEER_PASS_BAD_L3, "IPv6 header with version 4");
	fixture_stop(&e);
}

/* A cut in the fixed 20 bytes is a truncated header, and so is a cut in
 * the options: the header is checked whole, options included, before its
 * Total Length is believed, whether that says the datagram ends at the
 * cut (below the header) or where it was built to end (past the frame).
 */
static void ipv4_truncated_header_passes(void)
{
	struct fixture e;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP], part[FIXTURE_FRAME_CAP];
	struct fixture_result r;
	char what[80];
	size_t len, cut;
	int fits;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	fixture_build(&s, frame);
	for (cut = ETH_HLEN; cut < ETH_HLEN + 20; cut++) {
		r = fixture_run_frame(&e, frame, cut);
		snprintf(what, sizeof(what), "IPv4 cut at %zu bytes", cut);
		fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, what);
	}
	s.ipv4_options_len = 40;
	len = fixture_build(&s, frame);
	for (cut = ETH_HLEN + 20; cut < ETH_HLEN + 60; cut += 3) {
		for (fits = 0; fits <= 1; fits++) {
			r = fixture_run_frame(&e, part, fixture_cut_frame(&s, frame, cut, fits, part));
			snprintf(what, sizeof(what), "ihl 15 cut at %zu of %zu, Total Length %s",
				 cut, len, fits ? "at the cut" : "as built");
			fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, what);
		}
	}
	fixture_stop(&e);
}

/* ---- IPv6 extension headers ---- */

static void ipv6_ext_headers_do_not_change_hash(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain, r;
	char what[64];
	int n, i, start;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	plain = fixture_run_spec(&e, &s);
	fixture_expect_redirect(&plain, "no ext headers");
	for (start = 0; start < 3; start++) {
		for (n = 1; n <= 8; n++) {
			s.next = n;
			for (i = 0; i < n; i++)
				s.ext[i] = fixture_ext_cycle[(start + i) % 3];
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "%d ext headers from type %u", n,
				 fixture_ext_cycle[start]);
			fixture_expect_same_place(&plain, &r, what);
			ASSERT_EQ(r.d.key.proto, IPPROTO_UDP, what);
			ASSERT_EQ(r.d.key.dport, 2000, what);
		}
	}
	fixture_stop(&e);
}

/* An extension header longer than eight octets (Hdr Ext Len 1..3) is
 * skipped by its length field: pkt_build writes 8-octet headers, so widen
 * one by hand with Pad1 options.
 */
static void ipv6_ext_header_length_field_is_honoured(void)
{
	struct fixture e;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_result plain, r;
	char what[64];
	size_t len, ext_end = ETH_HLEN + 40 + 8;
	__u16 plen;
	int units;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	plain = fixture_run_spec(&e, &s);
	for (units = 1; units <= 3; units++) {
		s.next = 1;
		s.ext[0] = 60;
		len = fixture_build(&s, frame);
		memmove(frame + ext_end + 8 * units, frame + ext_end, len - ext_end);
		memset(frame + ext_end, 0, 8 * units);
		frame[ETH_HLEN + 40 + 1] = units;
		plen = ((frame[ETH_HLEN + 4] << 8) | frame[ETH_HLEN + 5]) + 8 * units;
		frame[ETH_HLEN + 4] = plen >> 8;
		frame[ETH_HLEN + 5] = plen & 0xff;
		r = fixture_run_frame(&e, frame, len + 8 * units);
		snprintf(what, sizeof(what), "dest options, Hdr Ext Len %d", units);
		fixture_expect_same_place(&plain, &r, what);
	}
	fixture_stop(&e);
}

static void ipv6_nine_ext_headers_pass_as_ext_headers(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	int i;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 9;
	for (i = 0; i < s.next; i++)
		s.ext[i] = fixture_ext_cycle[i % 3];
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "9 ext headers");
	s.next = PKT_MAX_EXT;
	for (i = 0; i < s.next; i++)
		s.ext[i] = 60;
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "10 dest-options headers");
	fixture_stop(&e);
}

/* A chain of extension headers cut short is a frame shorter than its
 * Payload Length says; once Payload Length ends at the cut too, the chain
 * runs past the payload.
 */
static void expect_cut_chain_passes(struct fixture *e, const struct pkt_spec *s, size_t cut,
				    const char *what)
{
	__u8 frame[FIXTURE_FRAME_CAP], part[FIXTURE_FRAME_CAP];
	struct fixture_result r;
	char buf[96];

	fixture_build(s, frame);
	r = fixture_run_frame(e, part, fixture_cut_frame(s, frame, cut, false, part));
	snprintf(buf, sizeof(buf), "%s, Payload Length as built", what);
	fixture_expect_pass(&r, CPUSTEER_PASS_BAD_LENGTH, buf);
	r = fixture_run_frame(e, part, fixture_cut_frame(s, frame, cut, true, part));
	snprintf(buf, sizeof(buf), "%s, Payload Length at the cut", what);
	fixture_expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, buf);
}

static void ipv6_truncated_ext_header_passes(void)
{
	struct fixture e;
	struct pkt_spec s;
	char what[64];
	size_t cut, first = ETH_HLEN + 40;

	fixture_init(&e);
	FIXTURE_START(&e);
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
	fixture_stop(&e);
}

/* ---- fields that change within a flow ---- */

static void ttl_tos_id_and_flow_label_do_not_move_flow(void)
{
	static const __u8 ttls[] = { 1, 63, 255 };
	static const __u8 toses[] = { 0x10, 0xb8, 0xff };
	static const __u16 ids[] = { 1, 0x1234, 0xffff };
	static const __u32 labels[] = { 1, 0x12345, 0xfffff };
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain, r;
	char what[64];
	int fam, i;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		pkt_spec_init(&s, fam, IPPROTO_TCP);
		plain = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&plain, "baseline");
		for (i = 0; i < 3; i++) {
			pkt_spec_init(&s, fam, IPPROTO_TCP);
			s.ttl = ttls[i];
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "IPv%d ttl %u", fam, ttls[i]);
			fixture_expect_same_place(&plain, &r, what);

			pkt_spec_init(&s, fam, IPPROTO_TCP);
			s.tos = toses[i];
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "IPv%d tos/traffic class %#x", fam, toses[i]);
			fixture_expect_same_place(&plain, &r, what);

			pkt_spec_init(&s, fam, IPPROTO_TCP);
			if (fam == 4)
				s.ip_id = ids[i];
			else
				s.flow_label = labels[i];
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "IPv%d %s %#x", fam,
				 fam == 4 ? "IP ID" : "flow label",
				 fam == 4 ? ids[i] : labels[i]);
			fixture_expect_same_place(&plain, &r, what);
		}
	}
	fixture_stop(&e);
}

/* ---- fragments ---- */

static void ipv4_fragments_of_one_datagram_share_cpu(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result first, r, whole;
	__u8 frame[FIXTURE_FRAME_CAP];
	char what[64];
	__u32 dgram;
	size_t len;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (dgram = 0; dgram < 16; dgram++) {
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		s.sport = 5000 + dgram;
		s.ip_id = 100 + dgram;
		s.fragment = true;
		s.more_fragments = true;
		s.payload_len = 64;
		first = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u first fragment", dgram);
		fixture_expect_redirect(&first, what);
		ASSERT_EQ(first.d.key.sport, 0, what);
		ASSERT_EQ(first.d.key.dport, 0, what);
		ASSERT_EQ(first.d.key.proto, IPPROTO_UDP, what);
		ASSERT_EQ(first.d.key.family, 4, what);

		s.frag_offset = 9;	/* 72 bytes in: UDP header and 64 of payload */
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u middle fragment", dgram);
		fixture_expect_same_place(&first, &r, what);
		ASSERT_TRUE(fixture_same_key(&first.d.key, &r.d.key), what);

		s.frag_offset = 17;
		s.more_fragments = false;
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u last fragment", dgram);
		fixture_expect_same_place(&first, &r, what);
		ASSERT_TRUE(fixture_same_key(&first.d.key, &r.d.key), what);

		/* Unfragmented, the same flow does carry its ports, also with
		 * Don't Fragment set: DF is no fragment.
		 */
		s.fragment = false;
		s.frag_offset = 0;
		whole = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&whole, "unfragmented");
		ASSERT_EQ(whole.d.key.sport, 5000 + dgram, "unfragmented sport");
		len = fixture_build(&s, frame);
		frame[ETH_HLEN + 6] |= 0x40;
		r = fixture_run_frame(&e, frame, len);
		fixture_expect_same_place(&whole, &r, "DF set, not fragmented");
		ASSERT_EQ(r.d.key.sport, 5000 + dgram, "DF datagram sport");
	}
	fixture_stop(&e);
}

static void ipv6_fragments_of_one_datagram_share_cpu(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result first, r;
	char what[64];
	__u32 dgram;

	fixture_init(&e);
	FIXTURE_START(&e);
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
		first = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u first fragment", dgram);
		fixture_expect_redirect(&first, what);
		ASSERT_EQ(first.d.key.sport, 0, what);
		ASSERT_EQ(first.d.key.dport, 0, what);
		ASSERT_EQ(first.d.key.proto, s.proto, what);
		ASSERT_EQ(first.d.key.family, 6, what);

		s.frag_offset = 10;
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u middle fragment", dgram);
		fixture_expect_same_place(&first, &r, what);

		s.frag_offset = 20;
		s.more_fragments = false;
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "datagram %u last fragment", dgram);
		fixture_expect_same_place(&first, &r, what);
		ASSERT_TRUE(fixture_same_key(&first.d.key, &r.d.key), what);
	}
	fixture_stop(&e);
}

/* A fragment header with offset 0 and no more fragments (RFC 6946) wraps a
 * whole datagram: it keeps its ports and lands where the datagram without
 * the header lands. A real first fragment is hashed without its ports,
 * like the rest of its datagram.
 */
static void ipv6_atomic_fragment_lands_like_whole_datagram(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result whole, r, other_ports;
	char what[80];
	int tcp, dest_opts;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (tcp = 0; tcp <= 1; tcp++) {
		for (dest_opts = 0; dest_opts <= 1; dest_opts++) {
			pkt_spec_init(&s, 6, tcp ? IPPROTO_TCP : IPPROTO_UDP);
			s.next = dest_opts;
			s.ext[0] = 60;
			whole = fixture_run_spec(&e, &s);
			fixture_expect_redirect(&whole, "whole datagram");

			s.fragment = true;
			s.frag_id = 0x1234;
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "%s atomic fragment%s", tcp ? "TCP" : "UDP",
				 dest_opts ? " after destination options" : "");
			fixture_expect_same_place(&whole, &r, what);
			ASSERT_TRUE(fixture_same_key(&whole.d.key, &r.d.key), what);

			s.more_fragments = true;
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "%s first fragment%s", tcp ? "TCP" : "UDP",
				 dest_opts ? " after destination options" : "");
			fixture_expect_redirect(&r, what);
			ASSERT_EQ(r.d.key.sport, 0, what);
			ASSERT_EQ(r.d.key.dport, 0, what);
			ASSERT_NE(r.d.hash, whole.d.hash, what);
			s.sport++;
			s.dport++;
			other_ports = fixture_run_spec(&e, &s);
			fixture_expect_same_place(&r, &other_ports, "first fragment with other ports");
		}
	}
	fixture_stop(&e);
}

/* The atomic fragment header counts toward the eight extension headers
 * walked like any header (docs/flow-hash.md, section 1): with seven others
 * the datagram lands where the seven alone land; with eight others it
 * passes as ipv6_ext_headers, where the eight alone are steered.
 */
static void ipv6_atomic_fragment_counts_toward_eight_headers(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result alone, r;
	char what[96];
	int others;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (others = 7; others <= 8; others++) {
		pkt_spec_init(&s, 6, IPPROTO_UDP);
		s.next = others;
		memset(s.ext, 60, sizeof(s.ext));	/* destination options */
		alone = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "%d destination options headers", others);
		fixture_expect_redirect(&alone, what);
		s.fragment = true;
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "%d destination options headers and an atomic fragment",
			 others);
		if (others == 7)
			fixture_expect_same_place(&alone, &r, what);
		else
			fixture_expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, what);
	}
	fixture_stop(&e);
}

/* ---- L4 protocols ---- */

static void sctp_ports_are_parsed(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result a, b;
	int fam, diff_hash = 0, i;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		for (i = 0; i < 20; i++) {
			pkt_spec_init(&s, fam, IPPROTO_SCTP);
			s.sport = 3868;
			s.dport = 2905 + i;
			a = fixture_run_spec(&e, &s);
			fixture_expect_redirect(&a, "SCTP");
			ASSERT_EQ(a.d.key.proto, IPPROTO_SCTP, "SCTP key proto");
			ASSERT_EQ(a.d.key.sport, 3868, "SCTP key sport");
			ASSERT_EQ(a.d.key.dport, 2905 + i, "SCTP key dport");
			s.sport = 3869;
			b = fixture_run_spec(&e, &s);
			fixture_expect_redirect(&b, "SCTP other port");
			ASSERT_EQ(b.d.key.sport, 3869, "SCTP key sport");
			ASSERT_TRUE(!fixture_same_key(&a.d.key, &b.d.key), "different SCTP ports, different keys");
			diff_hash += a.d.hash != b.d.hash;
		}
	}
	ASSERT_EQ(diff_hash, 40, "SCTP port pairs with different hashes");
	fixture_stop(&e);
}

static void icmp_hashes_on_addresses_and_protocol(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result a, b, udp;
	struct fixture_counts n;
	int fam;
	__u8 proto;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		proto = fam == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
		pkt_spec_init(&s, fam, proto);
		a = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&a, "ICMP");
		ASSERT_EQ(a.d.key.proto, proto, "ICMP key proto");
		ASSERT_EQ(a.d.key.sport, 0, "ICMP key sport");
		ASSERT_EQ(a.d.key.dport, 0, "ICMP key dport");
		/* Bytes where ports would be (type, code, id) do not count. */
		s.payload_len = 40;
		b = fixture_run_spec(&e, &s);
		fixture_expect_same_place(&a, &b, "ICMP with other payload");
		/* Another destination is another flow. */
		if (fam == 4)
			pkt_set_addr4(s.daddr, 0x0a000003);
		else
			s.daddr[15] = 3;
		b = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&b, "ICMP to another host");
		ASSERT_NE(b.d.hash, a.d.hash, "ICMP hash with another destination");
		/* The protocol is part of the key. */
		pkt_spec_init(&s, fam, IPPROTO_UDP);
		s.sport = s.dport = 0;
		udp = fixture_run_spec(&e, &s);
		ASSERT_NE(udp.d.hash, a.d.hash, "UDP with ports 0 vs ICMP between same hosts");
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.seen_l3_only, 6, "seen_l3_only counter");
	fixture_stop(&e);
}

/* ---- one flow, any wrapping ---- */

static void same_flow_in_any_wrapping_lands_on_one_cpu(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain, r;
	char what[96];
	int flow, vl, opt, next, i;

	fixture_init(&e);
	FIXTURE_START(&e);
	rng_seed(7);
	for (flow = 0; flow < 16; flow++) {
		struct pkt_spec base;

		fixture_random_flow(&base, 4);
		plain = fixture_run_spec(&e, &base);
		fixture_expect_redirect(&plain, "IPv4 plain");
		for (vl = 0; vl <= CPUSTEER_MAX_VLAN_TAGS; vl++) {
			for (opt = 0; opt <= 40; opt += 8) {
				s = base;
				fixture_add_vlan_stack(&s, vl, flow + opt);
				s.ipv4_options_len = opt;
				s.ttl = 10 + opt;
				r = fixture_run_spec(&e, &s);
				snprintf(what, sizeof(what), "IPv4 flow %d, %d tags, %d option bytes",
					 flow, vl, opt);
				fixture_expect_same_place(&plain, &r, what);
			}
		}
		fixture_random_flow(&base, 6);
		plain = fixture_run_spec(&e, &base);
		fixture_expect_redirect(&plain, "IPv6 plain");
		for (vl = 0; vl <= CPUSTEER_MAX_VLAN_TAGS; vl++) {
			for (next = 0; next <= 8; next += 2) {
				s = base;
				fixture_add_vlan_stack(&s, vl, flow + next);
				s.next = next;
				for (i = 0; i < next; i++)
					s.ext[i] = fixture_ext_cycle[(flow + i) % 3];
				s.flow_label = flow * 1000 + next;
				r = fixture_run_spec(&e, &s);
				snprintf(what, sizeof(what), "IPv6 flow %d, %d tags, %d ext headers",
					 flow, vl, next);
				fixture_expect_same_place(&plain, &r, what);
			}
		}
	}
	fixture_stop(&e);
}

/* ---- non-IP ---- */

static void arp_passes_as_non_ip_by_default(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;

	fixture_init(&e);
	FIXTURE_START(&e);
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP");
	ASSERT_EQ(r.d.key.family, 0, "ARP key family");
	fixture_add_vlan(&s, 0x8100, 3);
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP in a VLAN");
	s.nvlan = 0;
	s.ethertype = 0x88cc;
	r = fixture_run_spec(&e, &s);
	fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, "LLDP");
	fixture_stop(&e);
}

static void arp_redirects_to_non_ip_cpu(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture_counts n;

	fixture_init(&e);
	fixture_opt(&e, "non-ip", "cpu:1");
	FIXTURE_START(&e);
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = fixture_run_spec(&e, &s);
	fixture_expect_redirect(&r, "ARP with non-ip cpu:1");
	ASSERT_EQ(r.d.cpu, 1, "ARP's CPU");
	s.ethertype = 0x88cc;
	r = fixture_run_spec(&e, &s);
	fixture_expect_redirect(&r, "LLDP with non-ip cpu:1");
	ASSERT_EQ(r.d.cpu, 1, "LLDP's CPU");
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.to[1], 2, "redirected to CPU 1");
	ASSERT_EQ(n.c.passed[CPUSTEER_PASS_NON_IP], 0, "passed as non_ip");
	fixture_stop(&e);
}

/* EtherType 0x0000 (an 802.3 length field, for the parser a type like
 * any other that is no IP) is non-IP, tagged or not: passed as non_ip,
 * or sent to the --non-ip CPU.
 */
static void ethertype_zero_is_non_ip(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture_counts before, after, d;
	int to_cpu, tagged;
	char what[80];

	for (to_cpu = 0; to_cpu <= 1; to_cpu++) {
		fixture_init(&e);
		if (to_cpu)
			fixture_opt(&e, "non-ip", "cpu:1");
		FIXTURE_START(&e);
		ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
		for (tagged = 0; tagged <= 1; tagged++) {
			pkt_spec_init(&s, 0, 0);
			s.ethertype = 0x0000;
			if (tagged)
				fixture_add_vlan(&s, 0x8100, 3);
			r = fixture_run_spec(&e, &s);
			snprintf(what, sizeof(what), "EtherType 0%s, %s", tagged ? " in a VLAN" : "",
				 to_cpu ? "--non-ip cpu:1" : "--non-ip pass");
			if (to_cpu) {
				fixture_expect_redirect(&r, what);
				ASSERT_EQ(r.d.cpu, 1, what);
			} else {
				fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, what);
			}
			ASSERT_EQ(r.d.key.family, 0, what);
		}
		ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
		d = fixture_counts_since(&before, &after);
		ASSERT_EQ(d.c.rx_packets, 2, "frames received");
		ASSERT_EQ(d.to[1], to_cpu ? 2 : 0, "redirected to CPU 1");
		ASSERT_EQ(d.c.passed[CPUSTEER_PASS_NON_IP], to_cpu ? 0 : 2, "passed as non_ip");
		ASSERT_EQ(d.c.rx_packets, d.redirected + d.c.passed[CPUSTEER_PASS_NON_IP],
			  "received = redirected + passed");
		fixture_stop(&e);
	}
}

static const struct tu_test tests[] = {
	TU_TEST(vlan_tagged_frame_lands_like_untagged),
	TU_TEST(vlan_stacks_land_like_untagged),
	TU_TEST(five_vlan_tags_pass_as_vlan_depth),
	TU_TEST(pppoe_sessions_land_like_bare_ip),
	TU_TEST(pppoe_without_ip_passes_as_non_ip),
	TU_TEST(mpls_stacks_land_like_bare_ip),
	TU_TEST(mpls_limits_pass_with_their_reason),
	TU_TEST(ipv4_options_do_not_change_hash),
	TU_TEST(ipv4_bad_ihl_or_version_passes_as_bad_l3),
	TU_TEST(ipv4_truncated_header_passes),
	TU_TEST(ipv6_ext_headers_do_not_change_hash),
	TU_TEST(ipv6_ext_header_length_field_is_honoured),
	TU_TEST(ipv6_nine_ext_headers_pass_as_ext_headers),
	TU_TEST(ipv6_truncated_ext_header_passes),
	TU_TEST(ttl_tos_id_and_flow_label_do_not_move_flow),
	TU_TEST(ipv4_fragments_of_one_datagram_share_cpu),
	TU_TEST(ipv6_fragments_of_one_datagram_share_cpu),
	TU_TEST(ipv6_atomic_fragment_lands_like_whole_datagram),
	TU_TEST(ipv6_atomic_fragment_counts_toward_eight_headers),
	TU_TEST(sctp_ports_are_parsed),
	TU_TEST(icmp_hashes_on_addresses_and_protocol),
	TU_TEST(same_flow_in_any_wrapping_lands_on_one_cpu),
	TU_TEST(arp_passes_as_non_ip_by_default),
	TU_TEST(arp_redirects_to_non_ip_cpu),
	TU_TEST(ethertype_zero_is_non_ip),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
