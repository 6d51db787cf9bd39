// SPDX-License-Identifier: GPL-2.0
/* Frames that end somewhere else than their headers say: IP length
 * fields at odds with the frame or with the headers (RFC 791, RFC 8200),
 * Ethernet padding, jumbograms, frames cut short at every byte or made of
 * random bytes, frames shorter than Ethernet, and multi-buffer frames
 * whose headers run on into the fragments. Each must be passed for its
 * reason, or steered where its whole datagram is, and never read past
 * the datagram's end.
 *
 * A file of its own because these test the parser's bounds with helpers
 * of their own (cut_outcome says what every cut must come to), apart
 * from the well-formed headers of test_steer_parse. The frame sets they
 * share with test_steer_prog, and the instance, are steer_fixture.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include "steer_fixture.h"

/* ---- what a result must look like ---- */

/* `d`, what one frame moved, must be that frame passed for `reason` and
 * nothing else.
 */
static void expect_counted_as_passed(const struct fixture_counts *d, __u32 reason, const char *what)
{
	struct fixture_counts want = {};
	char got[256], exp[256];

	want.c.rx_packets = 1;
	want.c.passed[reason] = 1;
	if (!fixture_same_counts(d, &want)) {
		printf("#   %s: counters moved: %s; expected: %s\n", what,
		       fixture_format_counts(d, got, sizeof(got)),
		       fixture_format_counts(&want, exp, sizeof(exp)));
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
 * pass reason, or FIXTURE_STEERED. With `length_fits` its IP length
 * field was made to end at the cut; without, it still claims the whole
 * datagram, which the frame no longer holds.
 */
static __u32 cut_outcome(const struct pkt_spec *s, size_t cut, bool length_fits)
{
	size_t l3 = pkt_l3_offset(s), l4 = l4_offset(s);

	if (cut < l3)
		return CPUSTEER_PASS_TRUNC_L2;
	if (cut < l3 + fixture_ip_fixed_header_len(s))
		return CPUSTEER_PASS_TRUNC_L3;
	/* IPv4 options are the header's, checked before Total Length. */
	if (s->family == 4 && cut < l4)
		return CPUSTEER_PASS_TRUNC_L3;
	if (!length_fits)
		return CPUSTEER_PASS_BAD_LENGTH;
	if (cut < l4)	/* IPv6: the chain runs past the payload */
		return CPUSTEER_PASS_EXT_HDRS;
	if (cut < l4 + ports_needed(s))
		return CPUSTEER_PASS_TRUNC_L4;
	return FIXTURE_STEERED;
}

/* ---- IP length fields ---- */

/* The datagrams of malformed_ip_lengths_pass_with_their_reason are
 * fixture_length_cases, in steer_fixture.c.
 */

static void malformed_ip_lengths_pass_with_their_reason(void)
{
	const struct fixture_length_case *c;
	struct fixture e;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_counts before, after, d;
	struct fixture_result r;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (c = fixture_length_cases; c < fixture_length_cases + fixture_nlength_cases; c++) {
		ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
		r = fixture_run_frame(&e, frame, fixture_build_length_case(c, frame));
		ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
		fixture_expect_pass(&r, c->reason, c->name);
		d = fixture_counts_since(&before, &after);
		expect_counted_as_passed(&d, c->reason, c->name);
	}
	fixture_stop(&e);
}

/* The frame of `s`, padded every way, must land where `plain` did. */
static void expect_padding_ignored(struct fixture *e, const struct pkt_spec *s,
				   const struct fixture_result *plain)
{
	static const __u8 fills[] = { 0x00, 0xa5, 0xff };
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len = fixture_build(s, frame), to[] = { 60, len + 1, len + 200 }, i, j;
	struct fixture_result r;
	char what[96];

	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		for (j = 0; j < ARRAY_SIZE(to); j++) {
			r = fixture_run_frame(e, frame, fixture_pad_frame(frame, len, to[j], fills[i]));
			snprintf(what, sizeof(what), "IPv%d proto %u padded to %zu with %#x",
				 s->family, s->proto, to[j], fills[i]);
			fixture_expect_same_place(plain, &r, what);
			ASSERT_TRUE(fixture_same_key(&plain->d.key, &r.d.key), what);
		}
	}
	/* Ending right after the ports, the datagram leaves the rest of its
	 * L4 header as padding.
	 */
	pkt_set_ip_length(s, frame, l4_offset(s) - pkt_l3_offset(s) + 4);
	r = fixture_run_frame(e, frame, fixture_pad_frame(frame, len, 60, 0));
	snprintf(what, sizeof(what), "IPv%d proto %u datagram ending with its ports", s->family,
		 s->proto);
	fixture_expect_same_place(plain, &r, what);
}

/* Bytes after the datagram, Ethernet padding up to 60 bytes or whatever
 * else trails it in the frame, are no part of the flow: the frame lands
 * where the frame without them lands.
 */
static void padded_frame_lands_like_unpadded(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result plain;
	int fam, tcp;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		for (tcp = 0; tcp <= 1; tcp++) {
			pkt_spec_init(&s, fam, tcp ? IPPROTO_TCP : IPPROTO_UDP);
			s.payload_len = 0;
			plain = fixture_run_spec(&e, &s);
			fixture_expect_redirect(&plain, "unpadded");
			expect_padding_ignored(&e, &s, &plain);
		}
	}
	fixture_stop(&e);
}

/* Payload Length 0 under a hop-by-hop header is a jumbogram (RFC 2675):
 * its length is in an option and the frame ends where it does. It lands
 * like the same datagram with its length in the header.
 */
static void ipv6_jumbogram_lands_like_its_datagram(void)
{
	struct fixture e;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_result plain, r;
	size_t len;
	int tcp;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (tcp = 0; tcp <= 1; tcp++) {
		pkt_spec_init(&s, 6, tcp ? IPPROTO_TCP : IPPROTO_UDP);
		s.next = 1;
		s.ext[0] = 0;
		len = fixture_build(&s, frame);
		plain = fixture_run_frame(&e, frame, len);
		fixture_expect_redirect(&plain, "Payload Length in the header");
		pkt_set_ip_length(&s, frame, 40);
		r = fixture_run_frame(&e, frame, len);
		fixture_expect_same_place(&plain, &r, tcp ? "TCP jumbogram" : "UDP jumbogram");
		ASSERT_TRUE(fixture_same_key(&plain.d.key, &r.d.key), "jumbogram's flow key");
	}
	fixture_stop(&e);
}

/* ---- frames the program must survive ---- */

static bool pass_or_redirect(const struct fixture_result *r)
{
	return !r->err && (r->retval == XDP_PASS || r->retval == XDP_REDIRECT) &&
	       r->d.outcome != ~0u;
}

static void random_short_frames_pass_or_redirect(void)
{
	struct fixture e;
	__u8 frame[64];
	struct fixture_result r;
	int len, n, t, bad = 0, total = 0, redirected[ARRAY_SIZE(fixture_random_types)] = {};

	fixture_init(&e);
	FIXTURE_START(&e);
	rng_seed(5);
	for (len = ETH_HLEN; len <= 60; len++) {
		for (t = 0; t < (int)ARRAY_SIZE(fixture_random_types); t++) {
			for (n = 0; n < 21; n++) {
				fixture_random_frame(frame, len, fixture_random_types[t], n % 3);
				r = fixture_run_frame(&e, frame, len);
				total++;
				redirected[t] += r.retval == XDP_REDIRECT;
				if (!pass_or_redirect(&r) && bad++ < 5)
					printf("#   %d random bytes (type %#x): err %d, verdict %u, outcome %u\n",
					       len, fixture_random_types[t], r.err, r.retval, r.d.outcome);
			}
		}
	}
	printf("#   of %d random frames, %d IPv4 and %d IPv6 redirected\n", total,
	       redirected[1], redirected[2]);
	ASSERT_EQ(bad, 0, "random frames neither passed nor redirected");
	ASSERT_TRUE(redirected[1] > 0, "some random IPv4 frames make it to a CPU");
	ASSERT_TRUE(redirected[2] > 0, "some random IPv6 frames make it to a CPU");
	fixture_stop(&e);
}

/* Whether `r` is `want` (cut_outcome()); a steered frame must land where
 * the whole frame did.
 */
static bool came_to(const struct fixture_result *r, __u32 want, const struct fixture_result *whole)
{
	if (!pass_or_redirect(r))
		return false;
	if (want == FIXTURE_STEERED)
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
	struct fixture e;
	struct pkt_spec specs[FIXTURE_NCUT_SPECS];
	__u8 frame[FIXTURE_FRAME_CAP], part[FIXTURE_FRAME_CAP];
	struct fixture_result whole, r;
	size_t len, cut;
	__u32 want;
	int i, fits, bad = 0;

	fixture_init(&e);
	FIXTURE_START(&e);
	fixture_cut_specs(specs);
	for (i = 0; i < FIXTURE_NCUT_SPECS; i++) {
		len = fixture_build(&specs[i], frame);
		whole = fixture_run_frame(&e, frame, len);
		fixture_expect_redirect(&whole, "whole frame");
		for (cut = ETH_HLEN; cut < len; cut++) {
			for (fits = 0; fits <= 1; fits++) {
				want = cut_outcome(&specs[i], cut, fits);
				r = fixture_run_frame(&e, part,
						      fixture_cut_frame(&specs[i], frame, cut, fits, part));
				if (!came_to(&r, want, &whole) && bad++ < 5)
					printf("#   frame %d cut at %zu of %zu, length field %s: expected %s %u; got err %d, verdict %u, outcome %u, reason %u, hash %#x vs %#x\n",
					       i, cut, len, fits ? "at the cut" : "as built",
					       want == FIXTURE_STEERED ? "steered" : "pass reason", want,
					       r.err, r.retval, r.d.outcome, r.d.reason, r.d.hash,
					       whole.d.hash);
			}
		}
	}
	ASSERT_EQ(bad, 0, "truncated frames with the wrong verdict");
	fixture_stop(&e);
}

static void frame_shorter_than_ethernet_is_refused(void)
{
	struct fixture e;
	__u8 frame[ETH_HLEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 8, 0 };
	struct fixture_counts n;
	struct fixture_result r;
	char what[64];
	int len;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (len = 1; len < ETH_HLEN; len++) {
		r = fixture_run_frame(&e, frame, len);
		snprintf(what, sizeof(what), "%d-byte frame: test run refused", len);
		ASSERT_TRUE(r.err < 0, what);
	}
	r = fixture_run_frame(&e, frame, ETH_HLEN);
	fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, "bare 14-byte IPv4 Ethernet header");
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.rx_packets, 1, "rx_packets counts only the frame the kernel took");
	fixture_stop(&e);
}

/* ---- multi-buffer frames ---- */

/* What a frame of several buffers is, and the frames this sends:
 * struct fixture_split_case and fixture_split_cases, in steer_fixture.h and .c.
 */

static struct fixture_result run_split_case(struct fixture *e, const struct fixture_split_case *c,
					    int prog)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len = fixture_build_split_case(c, frame);

	return fixture_run_frame_how(e, frame, len,
				     (struct fixture_run_how){ .prog = prog, .linear = c->linear });
}

static void multi_buffer_frames_steer_on_linear_headers(void)
{
	const struct fixture_split_case *c;
	struct fixture e;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_counts before, after, d;
	struct fixture_result whole, r;

	if (!fixture_kernel_splits_test_frames())
		SKIP(FIXTURE_NO_SPLIT_FRAMES);
	fixture_init(&e);
	FIXTURE_START(&e);
	for (c = fixture_split_cases; c < fixture_split_cases + fixture_nsplit_cases; c++) {
		ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
		r = run_split_case(&e, c, 0);
		ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
		if (c->reason != FIXTURE_STEERED) {
			fixture_expect_pass(&r, c->reason, c->name);
			d = fixture_counts_since(&before, &after);
			expect_counted_as_passed(&d, c->reason, c->name);
			continue;
		}
		whole = fixture_run_frame(&e, frame, fixture_build_split_case(c, frame));
		fixture_expect_redirect(&whole, "the same frame in one buffer");
		fixture_expect_same_place(&whole, &r, c->name);
	}
	fixture_stop(&e);
}

static const struct tu_test tests[] = {
	TU_TEST(malformed_ip_lengths_pass_with_their_reason),
	TU_TEST(padded_frame_lands_like_unpadded),
	TU_TEST(ipv6_jumbogram_lands_like_its_datagram),
	TU_TEST(random_short_frames_pass_or_redirect),
	TU_TEST(truncated_real_frames_pass_or_redirect),
	TU_TEST(frame_shorter_than_ethernet_is_refused),
	TU_TEST(multi_buffer_frames_steer_on_linear_headers),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
