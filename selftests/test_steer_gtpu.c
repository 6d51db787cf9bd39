// SPDX-License-Identifier: GPL-2.0
/* GTP-U, both ways of steering it (bpf/tunnel.h): --inner gtpu spreads
 * the flows inside one tunnel by the datagram each G-PDU carries, past
 * the optional fields and extension headers; --inner gtpu-teid keeps each
 * tunnel on one CPU by its outer addresses and TEID, whatever it carries.
 * The messages that carry no datagram go by the outer flow, counted.
 * The cases every tunnel kind shares (cut frames, patched bits, counts
 * of the fast program) are test_steer_tunnel's.
 *
 * Every check reads the kernel program's decision record or counters.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "names.h"
#include "stats_math.h"
#include "steer_fixture.h"

#define GTPU_PORT 2152
#define TUNNELS 200
#define FLOWS_PER_TUNNEL 5

/* One base station to one user plane: the outer 5-tuple every tunnel
 * between them shares.
 */
static void outer_spec(struct pkt_spec *o, int family)
{
	pkt_spec_init(o, family, IPPROTO_UDP);
	o->sport = GTPU_PORT;
	o->dport = GTPU_PORT;
	if (family == 4) {
		pkt_set_addr4(o->saddr, 0x0a640001);	/* 10.100.0.1 */
		pkt_set_addr4(o->daddr, 0x0a640002);
	} else {
		inet_pton(AF_INET6, "2001:db8:5::1", o->saddr);
		inet_pton(AF_INET6, "2001:db8:5::2", o->daddr);
	}
}

static struct fixture_result run_gtpu(struct fixture *e, const struct pkt_encap *g,
				      const struct pkt_spec *outer, const struct pkt_spec *inner)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len = pkt_build_tunnel(outer, g, inner, frame, sizeof(frame));

	ASSERT_TRUE(len > 0, "GTP-U frame fits");
	return fixture_run_frame(e, frame, len);
}

static void start_with(struct fixture *e, const char *inner)
{
	fixture_init(e);
	fixture_opt(e, "inner", inner);
}

/* The key a tunnel is hashed by: the outer addresses, and the TEID in
 * the ports' place, its high half where the source port is.
 */
static void expect_tunnel_key(const struct fixture_result *r, const struct fixture_result *outer,
			      __u32 teid, const char *what)
{
	struct cpusteer_flow_key want = outer->d.key;
	char buf[160];

	want.sport = teid >> 16;
	want.dport = teid & 0xffff;
	fixture_expect_redirect(r, what);
	snprintf(buf, sizeof(buf), "%s: tunnel gtpu-teid, not fallen back", what);
	ASSERT_TRUE(r->d.tunnel == CPUSTEER_TUNNEL_GTPU_TEID &&
		    r->d.inner_fallback == CPUSTEER_INNER_FALLBACKS, buf);
	snprintf(buf, sizeof(buf), "%s: keyed by outer addresses and TEID 0x%08x", what, teid);
	ASSERT_TRUE(fixture_same_key(&r->d.key, &want), buf);
}

static void expect_outer(const struct fixture_result *r, const struct fixture_result *outer,
			 int kind, __u32 why, const char *what)
{
	char buf[160];

	fixture_expect_redirect(r, what);
	snprintf(buf, sizeof(buf), "%s: %s, outer flow (%s wanted)", what, tunnel_name(kind),
		 inner_fallback_name(why));
	ASSERT_TRUE(r->d.tunnel == (__u32)kind && r->d.inner_fallback == why &&
		    fixture_same_key(&r->d.key, &outer->d.key), buf);
}

/* Every flow of a tunnel lands where the tunnel does, its End Marker
 * too; the tunnels between one pair of addresses spread over the CPUs;
 * an echo request goes by the outer flow. Counted per kind and reason.
 */
static void gtpu_teid_keeps_each_tunnel_on_one_cpu(void)
{
	struct pkt_encap g = { .kind = CPUSTEER_TUNNEL_GTPU_TEID };
	struct fixture_counts before, after, d;
	struct fixture_result first, r, outer_r;
	struct pkt_spec outer, in;
	struct fixture e, plain;
	__u64 per_cpu[2] = { 0, 0 }, frames = 0;
	double load[2];
	char what[128];
	int t, f, family;

	start_with(&e, "gtpu-teid");
	FIXTURE_START(&e);
	fixture_init(&plain);
	FIXTURE_START(&plain);
	ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
	rng_seed(29);
	for (t = 0; t < TUNNELS; t++) {
		family = t % 2 ? 6 : 4;
		outer_spec(&outer, family);
		outer_r = fixture_run_spec(&plain, &outer);
		g.vni = 0x80000000u + t * 0x10001u;
		g.gtpu_type = 0;
		g.gtpu_ext = t % 3;
		for (f = 0; f < FLOWS_PER_TUNNEL; f++) {
			fixture_random_flow(&in, f % 2 ? 6 : 4);
			r = run_gtpu(&e, &g, &outer, &in);
			snprintf(what, sizeof(what), "tunnel %d, flow %d", t, f);
			expect_tunnel_key(&r, &outer_r, g.vni, what);
			if (!f)
				first = r;
			fixture_expect_same_place(&first, &r, what);
			frames++;
		}
		g.gtpu_type = 254;
		g.gtpu_ext = 0;
		r = run_gtpu(&e, &g, &outer, &in);
		snprintf(what, sizeof(what), "tunnel %d, end marker", t);
		expect_tunnel_key(&r, &outer_r, g.vni, what);
		fixture_expect_same_place(&first, &r, what);
		frames++;
		if (first.d.cpu < 2)
			per_cpu[first.d.cpu]++;
	}
	outer_spec(&outer, 4);
	outer_r = fixture_run_spec(&plain, &outer);
	g.gtpu_type = 1;	/* echo request */
	r = run_gtpu(&e, &g, &outer, &in);
	expect_outer(&r, &outer_r, CPUSTEER_TUNNEL_GTPU_TEID, CPUSTEER_INNER_SIGNALLING,
		     "echo request by tunnel");
	load[0] = (double)per_cpu[0];
	load[1] = (double)per_cpu[1];
	printf("#   %d tunnels: CPU 0 %llu, CPU 1 %llu, Jain %.3f\n", TUNNELS,
	       (unsigned long long)per_cpu[0], (unsigned long long)per_cpu[1],
	       jain_index(load, 2));
	ASSERT_TRUE(jain_index(load, 2) >= 0.9, "the tunnels spread: Jain index >= 0.9");
	ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
	d = fixture_counts_since(&before, &after);
	ASSERT_EQ(d.c.inner_steered[CPUSTEER_TUNNEL_GTPU_TEID], frames, "steered by tunnel");
	ASSERT_EQ(d.c.inner_fallback[CPUSTEER_INNER_SIGNALLING], 1, "signalling counted");
	ASSERT_EQ(d.c.rx_packets, frames + 1, "frames received");
	ASSERT_EQ(d.c.rx_packets, d.redirected, "every frame redirected");
	fixture_stop(&plain);
	fixture_stop(&e);
}

/* By tunnel, only the first 8 octets are read: optional fields and
 * extension headers, a payload that is no IP at all, change nothing;
 * fewer than 8 octets, or another version, go by the outer flow.
 */
static void gtpu_teid_reads_the_header_alone(void)
{
	struct pkt_encap g = { .kind = CPUSTEER_TUNNEL_GTPU_TEID, .vni = 0x00c0ffee };
	__u8 frame[FIXTURE_FRAME_CAP], cut[FIXTURE_FRAME_CAP];
	struct fixture_result r, want, outer_r;
	struct pkt_spec outer, in;
	struct fixture e, plain;
	size_t len, udp_end, at;
	char what[96];

	start_with(&e, "gtpu-teid");
	FIXTURE_START(&e);
	fixture_init(&plain);
	FIXTURE_START(&plain);
	outer_spec(&outer, 4);
	outer_r = fixture_run_spec(&plain, &outer);
	pkt_spec_init(&in, 4, IPPROTO_TCP);
	want = run_gtpu(&e, &g, &outer, &in);
	expect_tunnel_key(&want, &outer_r, g.vni, "plain G-PDU");
	g.gtpu_flags = 0x03;
	g.gtpu_ext = CPUSTEER_MAX_GTPU_EXT_HEADERS + 3;
	r = run_gtpu(&e, &g, &outer, &in);
	expect_tunnel_key(&r, &outer_r, g.vni, "G-PDU with seven extension headers");
	len = pkt_build_tunnel(&outer, &g, &in, frame, sizeof(frame));
	udp_end = pkt_l3_offset(&outer) + fixture_ip_fixed_header_len(&outer) + 8;
	frame[udp_end + 8 + 4 + 4 + 8 + 4] = 0;	/* the fourth extension header's length */
	r = fixture_run_frame(&e, frame, len);
	expect_tunnel_key(&r, &outer_r, g.vni, "G-PDU with a malformed extension header");

	g.gtpu_flags = 0;
	g.gtpu_ext = 0;
	len = pkt_build_tunnel(&outer, &g, &in, frame, sizeof(frame));
	frame[udp_end + 8] = 0x50;	/* the datagram's first nibble */
	r = fixture_run_frame(&e, frame, len);
	expect_tunnel_key(&r, &outer_r, g.vni, "G-PDU carrying no IP");
	for (at = udp_end; at < udp_end + 8; at++) {
		fixture_cut_frame(&outer, frame, at, false, cut);
		pkt_set_ip_length(&outer, cut, at - pkt_l3_offset(&outer));
		outer_r = fixture_run_frame(&plain, cut, at);
		r = fixture_run_frame(&e, cut, at);
		snprintf(what, sizeof(what), "GTP-U header cut at %zu of 8 octets", at - udp_end);
		expect_outer(&r, &outer_r, CPUSTEER_TUNNEL_GTPU_TEID, CPUSTEER_INNER_TRUNCATED,
			     what);
	}
	outer_r = fixture_run_spec(&plain, &outer);
	frame[udp_end] = 0x50;		/* version 2 */
	r = fixture_run_frame(&e, frame, len);
	expect_outer(&r, &outer_r, CPUSTEER_TUNNEL_GTPU_TEID, CPUSTEER_INNER_UNSUPPORTED,
		     "GTP-U version 2 by tunnel");
	fixture_stop(&plain);
	fixture_stop(&e);
}

/* By the inner flow, the optional fields are there with any of E, S and
 * PN; up to four extension headers are walked, and a fifth is a limit
 * of the parser. The next-type octet means nothing without E.
 */
static void gtpu_extension_header_chains(void)
{
	struct pkt_encap g = { .kind = CPUSTEER_TUNNEL_GTPU, .vni = 77 };
	struct fixture_result bare, r, outer_r;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct pkt_spec outer, in;
	struct fixture e, plain;
	size_t len, udp_end;
	char what[96];
	int n, flags;

	start_with(&e, "gtpu");
	FIXTURE_START(&e);
	fixture_init(&plain);
	FIXTURE_START(&plain);
	outer_spec(&outer, 6);
	outer_r = fixture_run_spec(&plain, &outer);
	pkt_spec_init(&in, 6, IPPROTO_UDP);
	bare = fixture_run_spec(&e, &in);
	for (n = 0; n <= CPUSTEER_MAX_GTPU_EXT_HEADERS; n++) {
		g.gtpu_ext = n;
		r = run_gtpu(&e, &g, &outer, &in);
		snprintf(what, sizeof(what), "%d extension headers", n);
		fixture_expect_same_place(&bare, &r, what);
		ASSERT_TRUE(r.d.tunnel == CPUSTEER_TUNNEL_GTPU &&
			    r.d.inner_fallback == CPUSTEER_INNER_FALLBACKS &&
			    fixture_same_key(&r.d.key, &bare.d.key), what);
	}
	g.gtpu_ext = CPUSTEER_MAX_GTPU_EXT_HEADERS + 1;
	r = run_gtpu(&e, &g, &outer, &in);
	expect_outer(&r, &outer_r, CPUSTEER_TUNNEL_GTPU, CPUSTEER_INNER_UNSUPPORTED,
		     "a fifth extension header");
	g.gtpu_ext = 0;
	for (flags = 1; flags <= 3; flags++) {
		g.gtpu_flags = flags;
		len = pkt_build_tunnel(&outer, &g, &in, frame, sizeof(frame));
		udp_end = pkt_l3_offset(&outer) + fixture_ip_fixed_header_len(&outer) + 8;
		frame[udp_end + 11] = 0x85;	/* a next type, E clear */
		r = fixture_run_frame(&e, frame, len);
		snprintf(what, sizeof(what), "flags 0x%x, a next type without E", flags);
		fixture_expect_same_place(&bare, &r, what);
		ASSERT_TRUE(fixture_same_key(&r.d.key, &bare.d.key), what);
	}
	fixture_stop(&plain);
	fixture_stop(&e);
}

/* Each kind on its own port; both on one port is refused, and `all`
 * takes GTP-U by the inner flow only.
 */
static void gtpu_kinds_by_port(void)
{
	struct pkt_encap by_flow = { .kind = CPUSTEER_TUNNEL_GTPU, .vni = 5 };
	struct pkt_encap by_tunnel = { .kind = CPUSTEER_TUNNEL_GTPU_TEID, .vni = 5 };
	struct pkt_spec outer, in;
	struct fixture_result r;
	struct fixture e;

	fixture_init(&e);
	ASSERT_TRUE(steer_opts_set(&e.o, "inner", "gtpu,gtpu-teid") != 0,
		    "gtpu and gtpu-teid on one port: refused");
	ASSERT_TRUE(steer_opts_set(&e.o, "inner", "gtpu-teid:8805") == 0 &&
		    steer_opts_set(&e.o, "inner", "gtpu:2153,gtpu-teid") == 0,
		    "gtpu and gtpu-teid on ports of their own: taken");
	FIXTURE_START(&e);
	outer_spec(&outer, 4);
	pkt_spec_init(&in, 4, IPPROTO_UDP);
	r = run_gtpu(&e, &by_tunnel, &outer, &in);
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNEL_GTPU_TEID, "2152: gtpu-teid");
	outer.dport = 2153;
	r = run_gtpu(&e, &by_flow, &outer, &in);
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNEL_GTPU, "2153: gtpu");
	fixture_stop(&e);

	start_with(&e, "all");
	FIXTURE_START(&e);
	outer.dport = GTPU_PORT;
	r = run_gtpu(&e, &by_flow, &outer, &in);
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNEL_GTPU, "all: gtpu on 2152");
	fixture_stop(&e);
}

/* The worked examples of GTP-U by tunnel in docs/flow-hash.md section 7,
 * from frames: the spec's hash and bucket of each tunnel, whatever flow
 * its G-PDU carries.
 */
struct tunnel_answer {
	int family;
	__u32 teid;
	const char *hash_fn;
	__u32 hash, bucket;
};

static void gtpu_teid_known_answers(void)
{
	static const struct tunnel_answer rows[] = {
		{ 4, 0x00c0ffee, "multilinear", 2847600940u, 339 },
		{ 6, 0x80000001, "multilinear", 1727158228u, 205 },
		{ 4, 0x00c0ffee, "siphash13", 1291784614u, 153 },
		{ 6, 0x80000001, "siphash13", 63732373u, 7 },
	};
	struct pkt_encap g = { .kind = CPUSTEER_TUNNEL_GTPU_TEID };
	struct pkt_spec outer, in;
	struct fixture_result r;
	struct fixture e;
	char what[96];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		start_with(&e, "gtpu-teid");
		fixture_opt(&e, "key", "000102030405060708090a0b0c0d0e0f");
		fixture_opt(&e, "hash", rows[i].hash_fn);
		FIXTURE_START(&e);
		outer_spec(&outer, rows[i].family);
		fixture_random_flow(&in, 4);
		g.vni = rows[i].teid;
		r = run_gtpu(&e, &g, &outer, &in);
		snprintf(what, sizeof(what), "%s, IPv%d, TEID 0x%08x: hash %u bucket %u (%u %u wanted)",
			 rows[i].hash_fn, rows[i].family, rows[i].teid, r.d.hash, r.d.bucket,
			 rows[i].hash, rows[i].bucket);
		ASSERT_TRUE(r.d.hash == rows[i].hash && r.d.bucket == rows[i].bucket, what);
		fixture_stop(&e);
	}
}

static const struct tu_test tests[] = {
	TU_TEST(gtpu_teid_keeps_each_tunnel_on_one_cpu),
	TU_TEST(gtpu_teid_reads_the_header_alone),
	TU_TEST(gtpu_extension_header_chains),
	TU_TEST(gtpu_kinds_by_port),
	TU_TEST(gtpu_teid_known_answers),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
