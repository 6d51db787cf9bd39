// SPDX-License-Identifier: GPL-2.0
/* Plain frames (bpf/plain.h): untagged IPv4 without options or IPv6
 * without extension headers, of TCP, UDP or SCTP, whole in the frame's
 * linear part. Under the default configuration the program reads them
 * with a short parser of its own and hands every other frame to the full
 * one; under any other configuration the full parser reads them all.
 *
 * So each frame here runs under the default configuration and again
 * under the same one with --inner gre, which takes every frame to the
 * full parser and, since no frame here is GRE, must steer it alike. The
 * frames are plain ones and plain ones changed at each limit the short
 * parser tests (version and header length, IP length, fragment bits,
 * protocol, next header, the frame cut, padded or split): any frame the
 * two parsers decide apart, in verdict, record or counters, fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "steer_fixture.h"

#define ETH_LEN 14
#define IP_FIELD(off) (ETH_LEN + (off))	/* a network header field's offset */
#define SAMPLES_MAX 4096
#define L4_PORTS 4	/* the bytes of the two ports */

struct sample {
	__u8 data[FIXTURE_FRAME_CAP];
	__u32 len;
	__u32 linear;	/* as in struct fixture_run_how */
	char name[80];
};

/* One sample's outcome under one configuration. */
struct outcome {
	struct fixture_result r;
	struct fixture_counts moved;
	bool read;
};

static struct sample *samples;
static size_t nsamples;

static struct sample *add(const __u8 *frame, __u32 len, __u32 linear, const char *name)
{
	struct sample *s;

	if (nsamples == SAMPLES_MAX || len > FIXTURE_FRAME_CAP)
		return NULL;
	s = &samples[nsamples++];
	memcpy(s->data, frame, len);
	s->len = len;
	s->linear = linear;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static __u16 get16(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

/* The frame with the field of `width` bytes (1 or 2) at `off` set to each
 * of `n` values.
 */
static void add_field(const __u8 *frame, __u32 len, __u32 off, int width, const __u16 *v, int n,
		      const char *name)
{
	__u8 copy[FIXTURE_FRAME_CAP];
	char what[80];
	int i;

	for (i = 0; i < n; i++) {
		memcpy(copy, frame, len);
		if (width == 2)
			put16(copy + off, v[i]);
		else
			copy[off] = v[i];
		snprintf(what, sizeof(what), "%s 0x%0*x", name, 2 * width, v[i]);
		add(copy, len, 0, what);
	}
}

/* A plain frame, then the same frame cut at every length, padded, split
 * into a multi-buffer frame, and with each field the short parser reads
 * set to values at and beyond its limits.
 */
static void add_variants(const struct pkt_spec *spec, bool split)
{
	static const __u16 v4_first[] = { 0x45, 0x44, 0x46, 0x4f, 0x55, 0x65, 0x05 };
	static const __u16 v6_first[] = { 0x60, 0x6f, 0x40, 0x70, 0x00 };
	static const __u16 protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, IPPROTO_ICMP,
				       IPPROTO_ESP, 0, 44, 59, 255 };
	static const __u16 frag[] = { 0x0000, 0x4000, 0x8000, 0x2000, 0x0001, 0x1fff, 0x6000 };
	static const __u16 ethertypes[] = { 0x0800, 0x86dd, 0x8100, 0x0806, 0x0000 };
	static const __u16 ext_lengths[] = { 0, 1, 2, 255 };	/* in 8 octets, past the first */
	__u8 frame[FIXTURE_FRAME_CAP], copy[FIXTURE_FRAME_CAP];
	__u16 lengths[12];
	static const __u32 pads[] = { 1, 24 };
	__u32 len = fixture_build(spec, frame), l3len, cut, i;
	int v4 = spec->family == 4;
	__u16 right;
	char what[80];

	if (!len)
		return;
	add(frame, len, 0, "plain");
	for (cut = ETH_LEN; cut < len; cut++) {
		snprintf(what, sizeof(what), "cut to %u bytes", cut);
		add(frame, cut, 0, what);
	}
	for (i = 0; i < ARRAY_SIZE(pads); i++) {
		memcpy(copy, frame, len);
		memset(copy + len, 0xa5, pads[i]);
		snprintf(what, sizeof(what), "padded by %u bytes", pads[i]);
		add(copy, len + pads[i], 0, what);
	}
	for (cut = ETH_LEN + 8; split && cut < len; cut += 9) {
		snprintf(what, sizeof(what), "split after %u bytes", cut);
		add(frame, len, cut, what);
	}
	add_field(frame, len, 12, 2, ethertypes, ARRAY_SIZE(ethertypes), "EtherType");
	add_field(frame, len, IP_FIELD(0), 1, v4 ? v4_first : v6_first,
		  v4 ? ARRAY_SIZE(v4_first) : ARRAY_SIZE(v6_first), "first octet");
	add_field(frame, len, IP_FIELD(v4 ? 9 : 6), 1, protos, ARRAY_SIZE(protos),
		  v4 ? "protocol" : "next header");
	if (v4)
		add_field(frame, len, IP_FIELD(6), 2, frag, ARRAY_SIZE(frag), "fragment field");
	if (spec->next) {
		add_field(frame, len, IP_FIELD(40), 1, protos, ARRAY_SIZE(protos),
			  "first extension header's next header");
		add_field(frame, len, IP_FIELD(41), 1, ext_lengths, ARRAY_SIZE(ext_lengths),
			  "first extension header's length");
	}
	/* The IP length field: as built, around the ports' end and the
	 * frame's, and far off.
	 */
	l3len = len - ETH_LEN;
	right = get16(frame + IP_FIELD(v4 ? 2 : 4));
	lengths[0] = right;
	lengths[1] = right - 1;
	lengths[2] = right + 1;
	lengths[3] = 0;
	lengths[4] = v4 ? 19 : 3;
	lengths[5] = v4 ? 20 : 4;
	lengths[6] = v4 ? 23 : 5;
	lengths[7] = v4 ? 24 : 0xffff;
	lengths[8] = v4 ? l3len : l3len - 40;
	lengths[9] = lengths[8] + 1;
	lengths[10] = lengths[8] - 1;
	lengths[11] = 0xffff;
	add_field(frame, len, IP_FIELD(v4 ? 2 : 4), 2, lengths, ARRAY_SIZE(lengths), "IP length");
	/* Extension headers whole, and none, some or all of the ports. */
	for (i = 0; i <= L4_PORTS; i++)
		lengths[i] = spec->next * 8 + i;
	if (spec->next)
		add_field(frame, len, IP_FIELD(4), 2, lengths, L4_PORTS + 1,
			  "IP length around the ports");
}

static void build_samples(void)
{
	static const __u8 protos[] = { IPPROTO_UDP, IPPROTO_TCP, IPPROTO_SCTP };
	/* Extension header types in order, 1 standing for hop-by-hop (0). */
	static const __u8 ext_chains[][3] = { { 1 }, { 60 }, { 43 }, { 1, 60 }, { 60, 43 },
					      { 43, 1 }, { 1, 60, 43 }, { 1 }, { 1 } };
	bool split = fixture_kernel_splits_test_frames();
	struct pkt_spec s;
	int family, p, i, k;

	for (family = 4; family <= 6; family += 2)
		for (p = 0; p < (int)ARRAY_SIZE(protos); p++) {
			pkt_spec_init(&s, family, protos[p]);
			s.payload_len = 6;
			add_variants(&s, split);
		}
	/* IPv6 with chains of extension headers: the short read skips up to
	 * two of hop-by-hop, routing and destination options; a third, or a
	 * fragment header (the last two chains: atomic, then a first
	 * fragment), is the full parser's.
	 */
	for (i = 0; i < (int)ARRAY_SIZE(ext_chains); i++) {
		pkt_spec_init(&s, 6, i % 2 ? IPPROTO_TCP : IPPROTO_UDP);
		s.payload_len = 6;
		for (s.next = 0; s.next < 3 && ext_chains[i][s.next]; s.next++)
			s.ext[s.next] = ext_chains[i][s.next] == 1 ? 0 : ext_chains[i][s.next];
		s.fragment = i >= (int)ARRAY_SIZE(ext_chains) - 2;
		s.more_fragments = i == ARRAY_SIZE(ext_chains) - 1;
		add_variants(&s, split);
	}
	/* Random flows of both families, with payloads of every small
	 * length: each lands on its bucket by its own hash.
	 */
	rng_seed(0x9a1e);
	for (i = 0; i < 400; i++) {
		__u8 frame[FIXTURE_FRAME_CAP];
		__u32 len;

		fixture_random_flow(&s, 0);
		s.proto = protos[rng() % ARRAY_SIZE(protos)];
		if (s.family == 6)
			for (s.next = rng() % 4, k = 0; k < s.next; k++)
				s.ext[k] = (const __u8[]){ 0, 43, 60 }[rng() % 3];
		s.payload_len = rng() % 40;
		len = fixture_build(&s, frame);
		if (len)
			add(frame, len, 0, "random flow");
	}
}

static void run_all(struct fixture *e, struct outcome *out)
{
	struct fixture_counts before, after;
	size_t i;

	for (i = 0; i < nsamples; i++) {
		struct fixture_run_how how = { .linear = samples[i].linear };

		out[i].read = !fixture_read_counts(e, &before);
		out[i].r = fixture_run_frame_how(e, samples[i].data, samples[i].len, how);
		out[i].read = !fixture_read_counts(e, &after) && out[i].read;
		out[i].moved = fixture_counts_since(&before, &after);
	}
}

static bool same_decision(const struct fixture_result *a, const struct fixture_result *b)
{
	return !a->err && !b->err && a->retval == b->retval && a->d.outcome == b->d.outcome &&
	       a->d.reason == b->d.reason && a->d.hash == b->d.hash && a->d.bucket == b->d.bucket &&
	       a->d.cpu == b->d.cpu && a->d.path == b->d.path && a->d.tunnel == b->d.tunnel &&
	       fixture_same_key(&a->d.key, &b->d.key);
}

/* Under one configuration, then the other: the same of everything. */
static void plain_and_full_parsers_decide_alike(void)
{
	struct outcome *plain, *full;
	struct fixture_counts total = { 0 };
	struct fixture e;
	char a[256], b[256];
	size_t i, bad = 0, k;

	samples = calloc(SAMPLES_MAX, sizeof(*samples));
	plain = calloc(SAMPLES_MAX, sizeof(*plain));
	full = calloc(SAMPLES_MAX, sizeof(*full));
	ASSERT_TRUE(samples && plain && full, "memory for the samples");
	if (!samples || !plain || !full)
		goto out;
	build_samples();
	printf("#   %zu frames\n", nsamples);

	/* The short parser is the default hash's, whatever the run's. */
	fixture_init(&e);
	fixture_opt(&e, "hash", "multilinear");
	FIXTURE_START(&e);
	run_all(&e, plain);
	fixture_stop(&e);
	fixture_init(&e);
	fixture_opt(&e, "hash", "multilinear");
	fixture_opt(&e, "inner", "gre");
	FIXTURE_START(&e);
	run_all(&e, full);
	fixture_stop(&e);

	for (i = 0; i < nsamples; i++) {
		for (k = 0; k < sizeof(total) / sizeof(__u64); k++)
			((__u64 *)&total)[k] += ((__u64 *)&plain[i].moved)[k];
		if (plain[i].read && full[i].read && same_decision(&plain[i].r, &full[i].r) &&
		    fixture_same_counts(&plain[i].moved, &full[i].moved))
			continue;
		if (bad++ < 5)
			printf("#   frame %zu (%s): default: verdict %u, reason %u, hash %08x, cpu %u, moved %s; full parser: verdict %u, reason %u, hash %08x, cpu %u, moved %s\n",
			       i, samples[i].name, plain[i].r.retval, plain[i].r.d.reason,
			       plain[i].r.d.hash, plain[i].r.d.cpu,
			       fixture_format_counts(&plain[i].moved, a, sizeof(a)),
			       full[i].r.retval, full[i].r.d.reason, full[i].r.d.hash,
			       full[i].r.d.cpu, fixture_format_counts(&full[i].moved, b, sizeof(b)));
	}
	ASSERT_EQ(bad, 0, "frames the two parsers decide apart");

	/* The frames reach both sides of every limit, or agreement says
	 * little: steered to both CPUs, steered on addresses alone (a
	 * fragment, a protocol without ports), and passed for each reason a
	 * near-plain frame can have.
	 */
	ASSERT_TRUE(total.to[0] > 0 && total.to[1] > 0, "frames steered to each CPU");
	ASSERT_TRUE(total.c.seen_fragments > 0, "fragments steered");
	ASSERT_TRUE(total.c.seen_l3_only > 0, "frames without ports steered");
	ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_NON_IP] > 0, "frames passed as non-IP");
	ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_TRUNC_L3] > 0, "frames passed as truncated_l3");
	ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_TRUNC_L4] > 0, "frames passed as truncated_l4");
	ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_BAD_L3] > 0, "frames passed as bad_l3");
	ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_BAD_LENGTH] > 0, "frames passed as bad_ip_length");
	ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_EXT_HDRS] > 0, "frames passed as ipv6_ext_headers");
	if (fixture_kernel_splits_test_frames())
		ASSERT_TRUE(total.c.passed[CPUSTEER_PASS_HEADERS_IN_FRAGS] > 0,
			    "frames passed as headers_in_frags");
out:
	free(samples);
	free(plain);
	free(full);
}

static const struct tu_test tests[] = {
	TU_TEST(plain_and_full_parsers_decide_alike),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
