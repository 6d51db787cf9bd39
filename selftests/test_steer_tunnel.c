// SPDX-License-Identifier: GPL-2.0
/* --inner: frames of a tunnel the option names are steered by the flow
 * they carry (bpf/tunnel.h). The many flows inside one outer 5-tuple
 * spread over the CPUs; an inner flow lands where it lands bare, whatever
 * the outer header; and a tunnel whose inner headers cannot be read is
 * steered by its outer flow and counted, never passed or dropped.
 *
 * Every check reads the kernel program's own decision record (classify)
 * or, for the program an interface runs, its counters. The instance and
 * the frame runs are steer_fixture.h.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "names.h"
#include "stats_math.h"
#include "steer.skel.h"
#include "steer_fixture.h"
#include "tunnel_opts.h"

#define INNER_FLOWS 200

/* One way to wrap a frame, and the --inner that names it. */
struct tunnel_case {
	const char *name;
	struct pkt_encap encap;
	int outer_family;
	int inner_family;	/* 0: IPv4 and IPv6 in turn */
};

static const struct tunnel_case cases[] = {
	{ "vxlan in IPv4", { .kind = CPUSTEER_TUNNEL_VXLAN, .vni = 42 }, 4, 0 },
	{ "vxlan in IPv6", { .kind = CPUSTEER_TUNNEL_VXLAN, .vni = 7 }, 6, 0 },
	{ "geneve, Ethernet, 3 option words",
	  { .kind = CPUSTEER_TUNNEL_GENEVE, .ethernet = true, .geneve_opt_words = 3 }, 4, 0 },
	{ "geneve, IP, in IPv6", { .kind = CPUSTEER_TUNNEL_GENEVE }, 6, 0 },
	{ "gre", { .kind = CPUSTEER_TUNNEL_GRE }, 4, 0 },
	{ "gre with checksum, key and sequence",
	  { .kind = CPUSTEER_TUNNEL_GRE, .gre_flags = 0xb000, .vni = 9 }, 4, 0 },
	{ "gre with key, in IPv6", { .kind = CPUSTEER_TUNNEL_GRE, .gre_flags = 0x2000 }, 6, 0 },
	{ "gre, Ethernet (0x6558) with key",
	  { .kind = CPUSTEER_TUNNEL_GRE, .ethernet = true, .gre_flags = 0x2000 }, 4, 0 },
	{ "ipip", { .kind = CPUSTEER_TUNNEL_IPIP }, 4, 4 },
	{ "ipv4 in IPv6", { .kind = CPUSTEER_TUNNEL_IPIP }, 6, 4 },
	{ "sit", { .kind = CPUSTEER_TUNNEL_SIT }, 4, 6 },
	{ "ipv6 in IPv6", { .kind = CPUSTEER_TUNNEL_SIT }, 6, 6 },
	{ "erspan type II", { .kind = CPUSTEER_TUNNEL_ERSPAN, .erspan_type = 2, .vni = 300 }, 4, 0 },
	{ "erspan type III", { .kind = CPUSTEER_TUNNEL_ERSPAN, .erspan_type = 3 }, 4, 0 },
	{ "erspan type III with subheader and key, in IPv6",
	  { .kind = CPUSTEER_TUNNEL_ERSPAN, .erspan_type = 3, .erspan_subheader = true,
	    .gre_flags = 0x2000 }, 6, 0 },
	{ "erspan type I", { .kind = CPUSTEER_TUNNEL_ERSPAN, .erspan_type = 1 }, 4, 0 },
	{ "gtpu", { .kind = CPUSTEER_TUNNEL_GTPU, .vni = 0x1000 }, 4, 0 },
	{ "gtpu with a sequence number and two extension headers, in IPv6",
	  { .kind = CPUSTEER_TUNNEL_GTPU, .vni = 0x2000, .gtpu_flags = 0x02, .gtpu_ext = 2 }, 6, 0 },
};
#define ERSPAN2 12	/* indices of the ERSPAN cases above */
#define ERSPAN3 13
#define ERSPAN3_SUB6 14
#define ERSPAN1 15
#define GTPU 16
#define GTPU_EXT6 17

/* The outer header every inner flow of a case shares: one 5-tuple, as a
 * sender that does not vary the source port makes it. `variant` moves
 * the outer addresses and source port, as another path or hypervisor
 * would.
 */
static void outer_spec(struct pkt_spec *o, int family, int kind, int variant)
{
	pkt_spec_init(o, family, IPPROTO_UDP);
	o->sport = 40000 + variant;
	o->dport = kind == CPUSTEER_TUNNEL_GENEVE ? 6081 : kind == CPUSTEER_TUNNEL_GTPU ? 2152 : 4789;
	if (family == 4) {
		pkt_set_addr4(o->saddr, 0xc6336401 + variant);	/* 198.51.100.x */
		pkt_set_addr4(o->daddr, 0xcb007102);		/* 203.0.113.2 */
	} else {
		inet_pton(AF_INET6, variant ? "2001:db8::11" : "2001:db8::1", o->saddr);
		inet_pton(AF_INET6, "2001:db8::2", o->daddr);
	}
}

static void inner_flow(struct pkt_spec *in, const struct tunnel_case *c)
{
	fixture_random_flow(in, c->inner_family);
}

static struct fixture_result run_tunnel(struct fixture *e, const struct tunnel_case *c,
					const struct pkt_spec *outer, const struct pkt_spec *inner)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len = pkt_build_tunnel(outer, &c->encap, inner, frame, sizeof(frame));

	ASSERT_TRUE(len > 0, "tunnel frame fits");
	return fixture_run_frame(e, frame, len);
}

static void env_inner(struct fixture *e, const char *list)
{
	fixture_init(e);
	fixture_opt(e, "inner", list);
}

static void expect_inner(const struct fixture_result *r, int kind, const char *what)
{
	char buf[160];

	fixture_expect_redirect(r, what);
	snprintf(buf, sizeof(buf), "%s: tunnel recorded", what);
	ASSERT_EQ(r->d.tunnel, kind, buf);
	snprintf(buf, sizeof(buf), "%s: steered by the inner flow", what);
	ASSERT_EQ(r->d.inner_fallback, CPUSTEER_INNER_FALLBACKS, buf);
}

/* Redirected by the outer flow (whose key `outer_key` is), and why. */
static void expect_fallback(const struct fixture_result *r, int kind, __u32 why,
			    const struct cpusteer_flow_key *outer_key, const char *what)
{
	char buf[160];

	fixture_expect_redirect(r, what);
	snprintf(buf, sizeof(buf), "%s: tunnel recorded", what);
	ASSERT_EQ(r->d.tunnel, kind, buf);
	snprintf(buf, sizeof(buf), "%s: fallback reason (%s wanted)", what,
		 inner_fallback_name(why));
	ASSERT_EQ(r->d.inner_fallback, why, buf);
	snprintf(buf, sizeof(buf), "%s: the key hashed is the outer flow's", what);
	ASSERT_TRUE(outer_key->family && fixture_same_key(&r->d.key, outer_key), buf);
}

static double jain_of(const __u64 per_cpu[2])
{
	double x[2] = { (double)per_cpu[0], (double)per_cpu[1] };

	return jain_index(x, 2);
}

/* ---- inner flows ---- */

/* Per case, INNER_FLOWS inner flows inside one outer 5-tuple: each is
 * steered by its inner flow, lands where it lands bare and stays there
 * under another outer header, and together they spread over the CPUs.
 */
static void inner_flows_land_as_bare_and_spread_over_cpus(void)
{
	const struct tunnel_case *c;
	struct pkt_spec outer, other, in;
	struct fixture_result bare, r;
	__u64 per_cpu[2];
	struct fixture e;
	char what[128];
	size_t i;
	int f;

	env_inner(&e, "all");
	FIXTURE_START(&e);
	rng_seed(11);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		outer_spec(&outer, c->outer_family, c->encap.kind, 0);
		outer_spec(&other, c->outer_family, c->encap.kind, 1);
		per_cpu[0] = per_cpu[1] = 0;
		for (f = 0; f < INNER_FLOWS; f++) {
			inner_flow(&in, c);
			r = run_tunnel(&e, c, &outer, &in);
			snprintf(what, sizeof(what), "%s, inner flow %d", c->name, f);
			expect_inner(&r, c->encap.kind, what);
			if (r.d.cpu < 2)
				per_cpu[r.d.cpu]++;
			bare = fixture_run_spec(&e, &in);
			snprintf(what, sizeof(what), "%s, flow %d: encapsulated as bare", c->name, f);
			fixture_expect_same_place(&bare, &r, what);
			ASSERT_TRUE(fixture_same_key(&bare.d.key, &r.d.key), what);
			r = run_tunnel(&e, c, &other, &in);
			snprintf(what, sizeof(what), "%s, flow %d: under another outer header",
				 c->name, f);
			fixture_expect_same_place(&bare, &r, what);
		}
		printf("#   %s: CPU 0 %llu, CPU 1 %llu of %d inner flows, Jain %.3f\n", c->name,
		       (unsigned long long)per_cpu[0], (unsigned long long)per_cpu[1],
		       INNER_FLOWS, jain_of(per_cpu));
		snprintf(what, sizeof(what), "%s: Jain index of the inner flows >= 0.9", c->name);
		ASSERT_TRUE(jain_of(per_cpu) >= 0.9, what);
	}
	fixture_stop(&e);
}

/* The inner frame goes through the outer parser: tags, options and
 * extension headers inside the tunnel leave the flow where it is.
 */
static void inner_tags_options_and_extension_headers_are_parsed(void)
{
	const struct tunnel_case *vxlan = &cases[0];
	struct pkt_spec outer, in, wrapped;
	struct fixture_result bare, r;
	struct fixture e;

	env_inner(&e, "all");
	FIXTURE_START(&e);
	outer_spec(&outer, 4, CPUSTEER_TUNNEL_VXLAN, 0);
	pkt_spec_init(&in, 6, IPPROTO_TCP);
	bare = fixture_run_spec(&e, &in);
	wrapped = in;
	fixture_add_vlan(&wrapped, 0x8100, 12);
	fixture_add_vlan(&wrapped, 0x8100, 13);
	wrapped.next = 3;
	memcpy(wrapped.ext, fixture_ext_cycle, sizeof(fixture_ext_cycle));
	r = run_tunnel(&e, vxlan, &outer, &wrapped);
	expect_inner(&r, CPUSTEER_TUNNEL_VXLAN, "two tags and three extension headers inside");
	fixture_expect_same_place(&bare, &r, "IPv6 inner flow, tagged, with extension headers");
	ASSERT_EQ(r.d.path, 0, "the recorded path is the outer frame's: no tags");
	fixture_add_vlan(&outer, 0x88a8, 30);
	r = run_tunnel(&e, vxlan, &outer, &in);
	fixture_expect_same_place(&bare, &r, "IPv6 inner flow in a tagged outer frame");
	ASSERT_EQ(r.d.path, CPUSTEER_PATH_VLAN, "the recorded path is the outer frame's: a tag");
	outer.nvlan = 0;
	pkt_spec_init(&in, 4, IPPROTO_UDP);
	bare = fixture_run_spec(&e, &in);
	in.ipv4_options_len = 12;
	r = run_tunnel(&e, vxlan, &outer, &in);
	fixture_expect_same_place(&bare, &r, "IPv4 inner flow with options");
	fixture_stop(&e);
}

/* ---- which tunnels ---- */

static void tunnels_not_named_are_steered_by_outer_flow(void)
{
	const struct tunnel_case *vxlan = &cases[0], *gre = &cases[4];
	struct pkt_spec outer, in;
	struct fixture_result r, outer_r;
	struct fixture_counts n;
	struct fixture e;

	fixture_init(&e);	/* no --inner */
	FIXTURE_START(&e);
	outer_spec(&outer, 4, CPUSTEER_TUNNEL_VXLAN, 0);
	pkt_spec_init(&in, 4, IPPROTO_UDP);
	r = run_tunnel(&e, vxlan, &outer, &in);
	fixture_expect_redirect(&r, "vxlan without --inner");
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNELS, "without --inner no tunnel is looked into");
	ASSERT_EQ(r.d.key.dport, 4789, "the key is the outer flow's");
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.inner_steered[CPUSTEER_TUNNEL_VXLAN], 0, "no inner flow counted");
	fixture_stop(&e);

	env_inner(&e, "gre");
	FIXTURE_START(&e);
	r = run_tunnel(&e, vxlan, &outer, &in);
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNELS, "--inner gre leaves vxlan alone");
	outer_r = fixture_run_spec(&e, &outer);	/* the same UDP flow, no tunnel inside */
	ASSERT_TRUE(fixture_same_key(&r.d.key, &outer_r.d.key), "vxlan keyed by its outer flow");
	outer_spec(&outer, 4, CPUSTEER_TUNNEL_GRE, 0);
	r = run_tunnel(&e, gre, &outer, &in);
	expect_inner(&r, CPUSTEER_TUNNEL_GRE, "--inner gre");
	fixture_stop(&e);
}

static void udp_tunnels_on_the_ports_given(void)
{
	const struct tunnel_case *vxlan = &cases[0], *geneve = &cases[3];
	struct pkt_spec outer, in;
	struct fixture_result r;
	struct fixture e;

	env_inner(&e, "vxlan:8472,geneve:7000");
	FIXTURE_START(&e);
	pkt_spec_init(&in, 4, IPPROTO_TCP);
	outer_spec(&outer, 4, CPUSTEER_TUNNEL_VXLAN, 0);
	outer.dport = 8472;
	r = run_tunnel(&e, vxlan, &outer, &in);
	expect_inner(&r, CPUSTEER_TUNNEL_VXLAN, "vxlan on 8472");
	outer.dport = 4789;
	r = run_tunnel(&e, vxlan, &outer, &in);
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNELS, "4789 is not among the ports given");
	outer_spec(&outer, 6, CPUSTEER_TUNNEL_GENEVE, 0);
	outer.dport = 7000;
	r = run_tunnel(&e, geneve, &outer, &in);
	expect_inner(&r, CPUSTEER_TUNNEL_GENEVE, "geneve on 7000");
	fixture_stop(&e);
}

/* Protocol 47 is GRE or ERSPAN by its GRE protocol: --inner gre reads
 * an ERSPAN frame as GRE carrying a type it cannot read, and --inner
 * erspan leaves plain GRE alone (its outer flow, no tunnel, nothing
 * counted). A GRE header too short to name its protocol, and a fragment,
 * are GRE to either.
 */
static void gre_or_erspan_by_the_gre_protocol(void)
{
	const struct tunnel_case *gre = &cases[4], *erspan = &cases[ERSPAN2];
	__u8 frame[FIXTURE_FRAME_CAP], cut[FIXTURE_FRAME_CAP];
	struct fixture_counts before, after, d;
	struct fixture_result r, outer_r;
	struct pkt_spec outer, in;
	struct fixture e, plain;
	size_t len, at, i;

	fixture_init(&plain);
	FIXTURE_START(&plain);
	outer_spec(&outer, 4, CPUSTEER_TUNNEL_GRE, 0);
	pkt_spec_init(&in, 4, IPPROTO_UDP);
	outer_r = run_tunnel(&plain, erspan, &outer, &in);

	env_inner(&e, "gre");
	FIXTURE_START(&e);
	r = run_tunnel(&e, erspan, &outer, &in);
	expect_fallback(&r, CPUSTEER_TUNNEL_GRE, CPUSTEER_INNER_UNSUPPORTED, &outer_r.d.key,
			"erspan under --inner gre");
	fixture_stop(&e);

	env_inner(&e, "erspan");
	FIXTURE_START(&e);
	r = run_tunnel(&e, erspan, &outer, &in);
	expect_inner(&r, CPUSTEER_TUNNEL_ERSPAN, "erspan under --inner erspan");
	ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
	outer_r = run_tunnel(&plain, gre, &outer, &in);
	r = run_tunnel(&e, gre, &outer, &in);
	fixture_expect_redirect(&r, "gre under --inner erspan");
	ASSERT_EQ(r.d.tunnel, CPUSTEER_TUNNELS, "gre under --inner erspan: no tunnel");
	ASSERT_EQ(r.d.inner_fallback, CPUSTEER_INNER_FALLBACKS, "gre under --inner erspan: no fallback");
	ASSERT_TRUE(fixture_same_key(&r.d.key, &outer_r.d.key),
		    "gre under --inner erspan: keyed by its outer flow");
	ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
	d = fixture_counts_since(&before, &after);
	ASSERT_EQ(d.c.rx_packets, 1, "one frame");
	ASSERT_EQ(d.redirected, 1, "redirected");
	for (i = 0; i < CPUSTEER_TUNNELS; i++)
		ASSERT_EQ(d.c.inner_steered[i], 0, "gre under --inner erspan: no inner flow counted");
	for (i = 0; i < CPUSTEER_INNER_FALLBACKS; i++)
		ASSERT_EQ(d.c.inner_fallback[i], 0, "gre under --inner erspan: no fallback counted");

	len = pkt_build_tunnel(&outer, &erspan->encap, &in, frame, sizeof(frame));
	ASSERT_TRUE(len > 0, "tunnel frame fits");
	at = pkt_l3_offset(&outer) + fixture_ip_fixed_header_len(&outer) + 2;
	fixture_cut_frame(&outer, frame, at, false, cut);
	pkt_set_ip_length(&outer, cut, at - pkt_l3_offset(&outer));
	outer_r = fixture_run_frame(&plain, cut, at);
	r = fixture_run_frame(&e, cut, at);
	expect_fallback(&r, CPUSTEER_TUNNEL_GRE, CPUSTEER_INNER_TRUNCATED, &outer_r.d.key,
			"erspan cut in its GRE protocol field, --inner erspan");

	outer.fragment = true;
	outer.more_fragments = true;
	outer_r = run_tunnel(&plain, erspan, &outer, &in);
	r = run_tunnel(&e, erspan, &outer, &in);
	expect_fallback(&r, CPUSTEER_TUNNEL_GRE, CPUSTEER_INNER_OUTER_FRAGMENT, &outer_r.d.key,
			"first fragment of erspan, --inner erspan");
	fixture_stop(&e);
	fixture_stop(&plain);
}

/* ---- falling back to the outer flow ---- */

static bool carries_ethernet(const struct tunnel_case *c)
{
	return c->encap.kind == CPUSTEER_TUNNEL_VXLAN || c->encap.kind == CPUSTEER_TUNNEL_ERSPAN ||
	       c->encap.ethernet;
}

/* A GRE header with the optional fields `flags` names: checksum, key and
 * sequence number, 4 octets each.
 */
static size_t gre_header_len(int flags)
{
	return 4 + 4 * (!!(flags & 0x8000) + !!(flags & 0x2000) + !!(flags & 0x1000));
}

/* The GRE and ERSPAN headers of an ERSPAN case: types II and III have a
 * sequence number, type III 12 octets of its own and 8 with the O bit.
 */
static size_t erspan_header_len(const struct tunnel_case *c)
{
	int type = c->encap.erspan_type, flags = c->encap.gre_flags;

	if (type == 1)
		return gre_header_len(flags & ~0x1000);
	return gre_header_len(flags | 0x1000) +
	       (type == 3 ? 12 + 8 * c->encap.erspan_subheader : 8);
}

/* GTP-U's header as frame_builder writes it: 8 octets, 4 more with any
 * flag, and extension headers of 4 and 8 octets in turn.
 */
static size_t gtpu_header_len(const struct pkt_encap *e)
{
	size_t len = 8 + (e->gtpu_flags || e->gtpu_ext ? 4 : 0);
	int i;

	for (i = 0; i < e->gtpu_ext; i++)
		len += i % 2 ? 8 : 4;
	return len;
}

/* The tunnel a frame of case `c` cut `room` octets into its transport
 * header is recorded as: a GRE header too short to name its protocol
 * is GRE, whatever it carries.
 */
static int kind_when_cut(const struct tunnel_case *c, size_t room)
{
	return c->encap.kind == CPUSTEER_TUNNEL_ERSPAN && room < 4 ? CPUSTEER_TUNNEL_GRE
								    : c->encap.kind;
}

/* Where the inner IP header starts in a frame of case `c`. */
static size_t inner_l3_offset(const struct tunnel_case *c, const struct pkt_spec *outer,
			      const struct pkt_spec *in)
{
	size_t off = pkt_l3_offset(outer) + fixture_ip_fixed_header_len(outer);
	bool ethernet = carries_ethernet(c);

	switch (c->encap.kind) {
	case CPUSTEER_TUNNEL_VXLAN:
		off += 8 + 8;
		break;
	case CPUSTEER_TUNNEL_GENEVE:
		off += 8 + 8 + 4 * c->encap.geneve_opt_words;
		break;
	case CPUSTEER_TUNNEL_GRE:
		off += gre_header_len(c->encap.gre_flags);
		break;
	case CPUSTEER_TUNNEL_ERSPAN:
		off += erspan_header_len(c);
		break;
	case CPUSTEER_TUNNEL_GTPU:
		off += 8 + gtpu_header_len(&c->encap);
		ethernet = false;
		break;
	default:
		ethernet = false;
	}
	return off + (ethernet ? pkt_l3_offset(in) : 0);
}

/* Every cut from the outer transport header to the inner ports, with
 * the outer IP length set to the cut: the outer flow is whole, the inner
 * one is not. Cut before the inner IP header ends, the tunnel counts as
 * truncated; after, the inner IP length runs past the outer datagram:
 * malformed. Never the inner flow.
 *
 * With `keep_bytes` the frame keeps every byte after the outer datagram
 * (at least 60, as a NIC pads a short frame), as Ethernet padding or
 * trailing bytes a NIC passes on: the inner frame ends with the outer
 * datagram, so the inner headers lying after it are never read.
 */
static void expect_cut_tunnels_fall_back(bool keep_bytes)
{
	__u8 frame[FIXTURE_FRAME_CAP], cut[FIXTURE_FRAME_CAP];
	const struct tunnel_case *c;
	struct pkt_spec outer, in;
	struct fixture_result r, outer_r;
	struct fixture_counts before, after, d;
	__u64 want[CPUSTEER_INNER_FALLBACKS] = {}, by_kind[CPUSTEER_TUNNELS] = {}, frames = 0;
	size_t i, len, run_len, at, from, inner_l3, inner_end;
	struct fixture e, plain;
	char what[160];
	__u32 why;

	env_inner(&e, "all");
	FIXTURE_START(&e);
	fixture_init(&plain);	/* no --inner: what it hashes is the outer flow */
	FIXTURE_START(&plain);
	ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		outer_spec(&outer, c->outer_family, c->encap.kind, 0);
		pkt_spec_init(&in, c->inner_family ? c->inner_family : 4, IPPROTO_UDP);
		len = pkt_build_tunnel(&outer, &c->encap, &in, frame, sizeof(frame));
		from = pkt_l3_offset(&outer) + fixture_ip_fixed_header_len(&outer) +
		       (tunnel_over_udp(c->encap.kind) ? 8 : 0);
		inner_l3 = inner_l3_offset(c, &outer, &in);
		inner_end = inner_l3 + fixture_ip_fixed_header_len(&in);
		/* Up to the inner ports: 4 octets past the inner IP header. */
		for (at = from; at < inner_end + 4; at++) {
			fixture_cut_frame(&outer, frame, keep_bytes ? len : at, false, cut);
			pkt_set_ip_length(&outer, cut, at - pkt_l3_offset(&outer));
			run_len = keep_bytes ? fixture_pad_frame(cut, len, 60, 0) : at;
			outer_r = fixture_run_frame(&plain, cut, run_len);
			r = fixture_run_frame(&e, cut, run_len);
			why = at < inner_end ? CPUSTEER_INNER_TRUNCATED : CPUSTEER_INNER_MALFORMED;
			snprintf(what, sizeof(what), "%s, outer datagram ends at %zu of %zu bytes%s",
				 c->name, at, len, keep_bytes ? ", frame kept whole" : "");
			expect_fallback(&r, kind_when_cut(c, at - from), why, &outer_r.d.key, what);
			want[why]++;
			by_kind[kind_when_cut(c, at - from)]++;
			frames++;
		}
	}
	ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
	d = fixture_counts_since(&before, &after);
	ASSERT_EQ(d.c.inner_fallback[CPUSTEER_INNER_TRUNCATED], want[CPUSTEER_INNER_TRUNCATED],
		  "truncated fallbacks counted");
	ASSERT_EQ(d.c.inner_fallback[CPUSTEER_INNER_MALFORMED], want[CPUSTEER_INNER_MALFORMED],
		  "malformed fallbacks counted");
	for (i = 0; i < CPUSTEER_TUNNELS; i++) {
		ASSERT_EQ(d.c.inner_steered[i], 0, "no frame counted as inner-steered");
		ASSERT_EQ(d.c.tunnel_fallback[i], by_kind[i], "fallbacks counted by tunnel");
	}
	ASSERT_EQ(d.c.rx_packets, frames, "every frame received");
	ASSERT_EQ(d.c.rx_packets, d.redirected, "every frame redirected by its outer flow");
	fixture_stop(&plain);
	fixture_stop(&e);
}

static void cut_tunnels_fall_back_to_outer_flow(void)
{
	expect_cut_tunnels_fall_back(false);
}

static void inner_headers_past_outer_datagram_fall_back(void)
{
	expect_cut_tunnels_fall_back(true);
}

/* A frame changed after it was built: `value` replaces the `mask` bits
 * of one byte of its tunnel header or of its inner frame.
 */
struct patched_case {
	const char *name;
	int tunnel_case;
	bool inner;		/* patch at the inner frame (its Ethernet header
				 * where it has one), else the tunnel header */
	size_t off;
	__u8 value;
	__u8 mask;		/* bits of the byte replaced by `value` */
	__u32 why;		/* the fallback; CPUSTEER_INNER_FALLBACKS: none,
				 * the inner flow */
};

static const struct patched_case unreadable[] = {
	{ "vxlan without its I flag", 0, false, 0, 0x00, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	{ "geneve version 1", 2, false, 0, 0x40, 0xc0, CPUSTEER_INNER_UNSUPPORTED },
	{ "gre version 1", 4, false, 1, 0x01, 0x07, CPUSTEER_INNER_UNSUPPORTED },
	{ "gre with routing", 4, false, 0, 0x40, 0x40, CPUSTEER_INNER_UNSUPPORTED },
	{ "gre carrying EtherType 0x8800", 4, false, 2, 0x88, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	{ "vxlan carrying ARP (0x0806)", 0, true, 13, 0x06, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	/* 0x0800 made 0x0000: a type like any other that is no IP. */
	{ "vxlan carrying EtherType 0", 0, true, 12, 0x00, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	{ "vxlan in IPv6 carrying EtherType 0", 1, true, 12, 0x00, 0xff,
	  CPUSTEER_INNER_UNSUPPORTED },
	{ "geneve carrying EtherType 0", 2, true, 12, 0x00, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	{ "gre carrying EtherType 0", 7, true, 12, 0x00, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	{ "ipip, inner IHL 4", 8, true, 0, 0x44, 0xff, CPUSTEER_INNER_MALFORMED },
	/* 60 bytes of header in a 46-byte inner datagram, the outer one's end:
	 * cut short, whatever the inner Total Length says.
	 */
	{ "ipip, inner options past the outer datagram", 8, true, 0, 0x4f, 0xff,
	  CPUSTEER_INNER_TRUNCATED },
	{ "sit, inner version 4", 10, true, 0, 0x40, 0xf0, CPUSTEER_INNER_MALFORMED },
	/* ERSPAN: its header after a GRE header of 8 octets (a sequence
	 * number), at 8.
	 */
	{ "erspan type II of version 2", ERSPAN2, false, 8, 0x20, 0xf0, CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan type II with GRE routing", ERSPAN2, false, 0, 0x40, 0x40,
	  CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan type II of GRE version 1", ERSPAN2, false, 1, 0x01, 0x07,
	  CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan type III of version 1", ERSPAN3, false, 8, 0x10, 0xf0, CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan type III, frame type 2 (IP)", ERSPAN3, false, 18, 0x08, 0x7c,
	  CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan type III, frame type 31", ERSPAN3, false, 18, 0x7c, 0x7c,
	  CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan carrying ARP (0x0806)", ERSPAN2, true, 13, 0x06, 0xff, CPUSTEER_INNER_UNSUPPORTED },
	{ "erspan type I carrying EtherType 0", ERSPAN1, true, 12, 0x00, 0xff,
	  CPUSTEER_INNER_UNSUPPORTED },
	/* GTP-U: its header right after the UDP header; an extension
	 * header's length at 12 in GTPU_EXT6's frame.
	 */
	{ "gtpu version 2", GTPU, false, 0, 0x40, 0xe0, CPUSTEER_INNER_UNSUPPORTED },
	{ "gtp prime (PT 0)", GTPU, false, 0, 0x00, 0x10, CPUSTEER_INNER_UNSUPPORTED },
	{ "gtpu echo request", GTPU, false, 1, 1, 0xff, CPUSTEER_INNER_SIGNALLING },
	{ "gtpu error indication", GTPU, false, 1, 26, 0xff, CPUSTEER_INNER_SIGNALLING },
	{ "gtpu end marker", GTPU_EXT6, false, 1, 254, 0xff, CPUSTEER_INNER_SIGNALLING },
	{ "gtpu extension header of length 0", GTPU_EXT6, false, 12, 0, 0xff,
	  CPUSTEER_INNER_MALFORMED },
	{ "gtpu carrying neither IPv4 nor IPv6", GTPU, true, 0, 0x50, 0xf0,
	  CPUSTEER_INNER_UNSUPPORTED },
};

/* Runs the frame of `u`'s tunnel case, patched, through `e` (--inner
 * all) and `plain` (no --inner, so it hashes the outer flow).
 */
static void run_patched(struct fixture *e, struct fixture *plain, const struct patched_case *u,
			struct fixture_result *r, struct fixture_result *outer_r)
{
	const struct tunnel_case *c = &cases[u->tunnel_case];
	struct pkt_spec outer, in;
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len, tunnel_off;
	__u8 *p;

	outer_spec(&outer, c->outer_family, c->encap.kind, 0);
	pkt_spec_init(&in, c->inner_family ? c->inner_family : 4, IPPROTO_UDP);
	len = pkt_build_tunnel(&outer, &c->encap, &in, frame, sizeof(frame));
	tunnel_off = pkt_l3_offset(&outer) + fixture_ip_fixed_header_len(&outer) +
		     (tunnel_over_udp(c->encap.kind) ? 8 : 0);
	p = frame + (u->inner ? inner_l3_offset(c, &outer, &in) -
					(carries_ethernet(c) ? ETH_HLEN : 0)
			      : tunnel_off) + u->off;
	*p = (*p & ~u->mask) | (u->value & u->mask);
	*outer_r = fixture_run_frame(plain, frame, len);
	*r = fixture_run_frame(e, frame, len);
}

/* Each row's frame, patched, falls back for the row's reason, or with
 * `why` none is steered by its inner flow where the same frame without
 * the patch lands.
 */
static void expect_patched_rows(const struct patched_case *rows, size_t n)
{
	struct patched_case clear;
	struct fixture_result r, outer_r, want;
	struct fixture e, plain;
	char what[128];
	size_t i;

	env_inner(&e, "all");
	FIXTURE_START(&e);
	fixture_init(&plain);
	FIXTURE_START(&plain);
	for (i = 0; i < n; i++) {
		run_patched(&e, &plain, &rows[i], &r, &outer_r);
		if (rows[i].why != CPUSTEER_INNER_FALLBACKS) {
			expect_fallback(&r, cases[rows[i].tunnel_case].encap.kind, rows[i].why,
					&outer_r.d.key, rows[i].name);
			continue;
		}
		expect_inner(&r, cases[rows[i].tunnel_case].encap.kind, rows[i].name);
		clear = rows[i];
		clear.value = 0;	/* the same frame with the bits clear */
		run_patched(&e, &plain, &clear, &want, &outer_r);
		snprintf(what, sizeof(what), "%s: where it lands without them", rows[i].name);
		fixture_expect_same_place(&want, &r, what);
	}
	fixture_stop(&plain);
	fixture_stop(&e);
}

static void unreadable_tunnels_fall_back_to_outer_flow(void)
{
	expect_patched_rows(unreadable, ARRAY_SIZE(unreadable));
}

/* Bits the spec has ignored change nothing: the frame is steered by its
 * inner flow (`why` none), where the same frame without them lands. GRE
 * bits 4-12, as the stack's GRE receive path ignores them; VXLAN's flags
 * but I and its reserved fields (RFC 7348); GENEVE's O and C bits and
 * its reserved ones; GTP-U's spare bit, Length, TEID and optional fields.
 */
#define NONE CPUSTEER_INNER_FALLBACKS
static const struct patched_case ignored_bits[] = {
	{ "vxlan with every flag bit but I set", 0, false, 0, 0xf7, 0xf7, NONE },
	{ "vxlan with its first reserved byte set", 0, false, 1, 0xff, 0xff, NONE },
	{ "vxlan with its third reserved byte set", 0, false, 3, 0xff, 0xff, NONE },
	{ "vxlan in IPv6 with its last reserved byte set", 1, false, 7, 0xff, 0xff, NONE },
	{ "geneve control message (O)", 2, false, 1, 0x80, 0x80, NONE },
	{ "geneve with critical options (C)", 2, false, 1, 0x40, 0x40, NONE },
	{ "geneve with its reserved bits set", 2, false, 1, 0x3f, 0x3f, NONE },
	{ "geneve in IPv6 with O and C", 3, false, 1, 0xc0, 0xc0, NONE },
	{ "gre with strict source route (bit 4)", 4, false, 0, 0x08, 0x08, NONE },
	{ "gre with recursion control 4 (bit 5)", 4, false, 0, 0x04, 0x04, NONE },
	{ "gre with recursion control 7 (bits 5-7)", 4, false, 0, 0x07, 0x07, NONE },
	{ "gre with flag bits 8-12", 4, false, 1, 0xf8, 0xf8, NONE },
	{ "gre in IPv6 with bits 4-7", 6, false, 0, 0x0f, 0x0f, NONE },
	{ "erspan type II with every VLAN bit", ERSPAN2, false, 8, 0x0f, 0x0f, NONE },
	{ "erspan type II with COS, En, T and session bits", ERSPAN2, false, 10, 0xff, 0xff,
	  NONE },
	{ "erspan type II with its reserved bits and index", ERSPAN2, false, 12, 0xff, 0xff,
	  NONE },
	{ "erspan type II with strict source route (bit 4)", ERSPAN2, false, 0, 0x08, 0x08, NONE },
	{ "erspan type III with a timestamp", ERSPAN3, false, 12, 0xff, 0xff, NONE },
	{ "erspan type III with P and hardware ID bits", ERSPAN3, false, 18, 0x83, 0x83, NONE },
	{ "erspan type III with D and Gra bits", ERSPAN3, false, 19, 0xfe, 0xfe, NONE },
	{ "gtpu with its spare bit", GTPU, false, 0, 0x08, 0x08, NONE },
	{ "gtpu with a Length at odds with the datagram", GTPU, false, 2, 0xff, 0xff, NONE },
	{ "gtpu with another TEID", GTPU, false, 4, 0xff, 0xff, NONE },
	{ "gtpu with another sequence and N-PDU number", GTPU_EXT6, false, 8, 0xff, 0xff, NONE },
	{ "gtpu with another extension header content", GTPU_EXT6, false, 13, 0xff, 0xff, NONE },
};
#undef NONE

static void ignored_tunnel_bits_keep_the_inner_flow(void)
{
	expect_patched_rows(ignored_bits, ARRAY_SIZE(ignored_bits));
}

/* An inner IPv6 chain of eight extension headers is walked as an outer
 * one; a ninth is past what the parser walks, a limit like a third VLAN
 * tag (unsupported), while a chain that runs past its own Payload Length
 * is a datagram at odds with itself (malformed).
 */
static void inner_extension_header_chains(void)
{
	static const int kinds[] = { 0, 11 };	/* vxlan in IPv4, ipv6 in IPv6 */
	__u8 frame[FIXTURE_FRAME_CAP];
	const struct tunnel_case *c;
	struct pkt_spec outer, in;
	struct fixture_result bare, r, outer_r;
	struct fixture e, plain;
	size_t k, len, inner_l3;
	char what[128];
	int n;

	env_inner(&e, "all");
	FIXTURE_START(&e);
	fixture_init(&plain);
	FIXTURE_START(&plain);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		c = &cases[kinds[k]];
		outer_spec(&outer, c->outer_family, c->encap.kind, 0);
		for (n = 8; n <= 9; n++) {
			pkt_spec_init(&in, 6, IPPROTO_UDP);
			in.next = n;
			memset(in.ext, 60, sizeof(in.ext));	/* destination options */
			len = pkt_build_tunnel(&outer, &c->encap, &in, frame, sizeof(frame));
			outer_r = fixture_run_frame(&plain, frame, len);
			r = fixture_run_frame(&e, frame, len);
			snprintf(what, sizeof(what), "%s, %d inner extension headers", c->name, n);
			if (n == 8) {
				expect_inner(&r, c->encap.kind, what);
				bare = fixture_run_spec(&e, &in);
				fixture_expect_same_place(&bare, &r, what);
			} else {
				expect_fallback(&r, c->encap.kind, CPUSTEER_INNER_UNSUPPORTED,
						&outer_r.d.key, what);
			}
		}
		/* Payload Length 12: the second of three headers runs past it. */
		in.next = 3;
		len = pkt_build_tunnel(&outer, &c->encap, &in, frame, sizeof(frame));
		inner_l3 = inner_l3_offset(c, &outer, &in);
		frame[inner_l3 + 4] = 0;
		frame[inner_l3 + 5] = 12;
		outer_r = fixture_run_frame(&plain, frame, len);
		r = fixture_run_frame(&e, frame, len);
		snprintf(what, sizeof(what), "%s, inner chain past its Payload Length", c->name);
		expect_fallback(&r, c->encap.kind, CPUSTEER_INNER_MALFORMED, &outer_r.d.key, what);
	}
	fixture_stop(&plain);
	fixture_stop(&e);
}

/* Only the first fragment of the outer datagram holds the inner headers:
 * every fragment is steered by the outer addresses and protocol, so
 * they meet on one CPU.
 */
static void fragmented_outer_datagram_falls_back(void)
{
	const struct tunnel_case *gre = &cases[4], *gre6 = &cases[6];
	struct pkt_spec outer, in;
	struct fixture_result first, later;
	struct fixture e;

	env_inner(&e, "all");
	FIXTURE_START(&e);
	pkt_spec_init(&in, 4, IPPROTO_UDP);
	outer_spec(&outer, 4, CPUSTEER_TUNNEL_GRE, 0);
	outer.fragment = true;
	outer.more_fragments = true;
	first = run_tunnel(&e, gre, &outer, &in);
	fixture_expect_redirect(&first, "first fragment of GRE in IPv4");
	ASSERT_EQ(first.d.inner_fallback, CPUSTEER_INNER_OUTER_FRAGMENT, "first: outer_fragment");
	outer.frag_offset = 8;
	outer.more_fragments = false;
	later = run_tunnel(&e, gre, &outer, &in);
	ASSERT_EQ(later.d.inner_fallback, CPUSTEER_INNER_OUTER_FRAGMENT, "last: outer_fragment");
	fixture_expect_same_place(&first, &later, "fragments of one GRE datagram");
	outer_spec(&outer, 6, CPUSTEER_TUNNEL_GRE, 0);
	outer.fragment = true;
	outer.more_fragments = true;
	outer.frag_id = 77;
	first = run_tunnel(&e, gre6, &outer, &in);
	ASSERT_EQ(first.d.inner_fallback, CPUSTEER_INNER_OUTER_FRAGMENT,
		  "first fragment of GRE in IPv6");
	fixture_stop(&e);
}

/* ---- counting ---- */

/* A tunnel frame whose bucket names a CPU without a cpumap entry is an
 * error like any other frame, and is counted once as inner-steered or
 * fallen back all the same: the tunnel counts are notes on frames counted
 * as redirected or as errors, and those add up to the frames received.
 */
static void tunnel_frames_ending_in_errors_are_counted_once(void)
{
	const struct tunnel_case *gre = &cases[4];
	struct fixture_counts before, after, d;
	__u64 steered[CPUSTEER_TUNNELS] = {}, errors = 0, redirected = 0, fallbacks = 0;
	const struct tunnel_case *c;
	struct pkt_spec outer, in;
	struct fixture_result r;
	struct fixture e;
	__u32 cpu = 1, i;
	char what[128];

	env_inner(&e, "all");
	FIXTURE_START(&e);
	ASSERT_EQ(bpf_map_delete_elem(e.in.maps.cpu_map, &cpu), 0, "delete CPU 1's cpumap entry");
	ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
	rng_seed(17);
	for (i = 0; i < 120; i++) {
		c = &cases[i % ARRAY_SIZE(cases)];
		outer_spec(&outer, c->outer_family, c->encap.kind, 0);
		inner_flow(&in, c);
		r = run_tunnel(&e, c, &outer, &in);
		snprintf(what, sizeof(what), "%s, inner flow %u", c->name, i);
		ASSERT_EQ(r.d.tunnel, c->encap.kind, what);
		ASSERT_EQ(r.d.inner_fallback, CPUSTEER_INNER_FALLBACKS, what);
		steered[c->encap.kind]++;
		errors += r.d.outcome == CPUSTEER_OUT_ERROR;
		redirected += r.d.outcome == CPUSTEER_OUT_REDIRECT;
	}
	/* Fragments of GRE datagrams from other hosts: outer-flow fallbacks. */
	pkt_spec_init(&in, 4, IPPROTO_UDP);
	for (i = 0; i < 40; i++) {
		outer_spec(&outer, 4, CPUSTEER_TUNNEL_GRE, i);
		outer.fragment = true;
		outer.more_fragments = true;
		r = run_tunnel(&e, gre, &outer, &in);
		ASSERT_EQ(r.d.inner_fallback, CPUSTEER_INNER_OUTER_FRAGMENT, "GRE fragment");
		fallbacks++;
		errors += r.d.outcome == CPUSTEER_OUT_ERROR;
		redirected += r.d.outcome == CPUSTEER_OUT_REDIRECT;
	}
	ASSERT_TRUE(errors > 0 && redirected > 0, "frames on both CPUs' buckets");
	ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
	d = fixture_counts_since(&before, &after);
	ASSERT_EQ(d.c.rx_packets, 160, "frames received");
	ASSERT_EQ(d.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], errors, "errors[no_cpumap_entry]");
	ASSERT_EQ(d.redirected, redirected, "redirected");
	ASSERT_EQ(d.c.rx_packets, d.redirected + d.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY],
		  "received = redirected + errors");
	for (i = 0; i < CPUSTEER_TUNNELS; i++)
		ASSERT_EQ(d.c.inner_steered[i], steered[i], "inner_steered, errors included");
	ASSERT_EQ(d.c.inner_fallback[CPUSTEER_INNER_OUTER_FRAGMENT], fallbacks,
		  "outer_fragment fallbacks, errors included");
	fixture_stop(&e);
}

/* ---- the program an interface runs ---- */

/* cpusteer_steer is classify's code without the record: for every kind
 * it must redirect where classify does and count each tunnel frame once,
 * as inner-steered or as a fallback, with the verdicts adding up.
 */
static void fast_program_counts_tunnels_as_classify_decides(void)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	const struct tunnel_case *c;
	struct pkt_spec outer, in;
	struct fixture_counts before, after, d;
	struct fixture_result slow, fast;
	struct fixture e;
	size_t i, len;
	int fd;

	env_inner(&e, "all");
	e.with_steer = true;
	FIXTURE_START(&e);
	fd = bpf_program__fd(e.in.skel->progs.cpusteer_steer);
	rng_seed(13);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		outer_spec(&outer, c->outer_family, c->encap.kind, 0);
		inner_flow(&in, c);
		len = pkt_build_tunnel(&outer, &c->encap, &in, frame, sizeof(frame));
		slow = fixture_run_frame(&e, frame, len);
		ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read counters");
		fast = fixture_run_frame_how(&e, frame, len, (struct fixture_run_how){ .prog = fd, .repeat = 3 });
		ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read counters");
		d = fixture_counts_since(&before, &after);
		ASSERT_EQ(fast.retval, XDP_REDIRECT, c->name);
		ASSERT_EQ(d.c.inner_steered[c->encap.kind], 3, c->name);
		ASSERT_EQ(d.to[slow.d.cpu < 2 ? slow.d.cpu : 0], 3, c->name);
		ASSERT_EQ(d.c.rx_packets, d.redirected, c->name);
	}
	fixture_stop(&e);
}

static const struct tu_test tests[] = {
	TU_TEST(inner_flows_land_as_bare_and_spread_over_cpus),
	TU_TEST(inner_tags_options_and_extension_headers_are_parsed),
	TU_TEST(tunnels_not_named_are_steered_by_outer_flow),
	TU_TEST(udp_tunnels_on_the_ports_given),
	TU_TEST(gre_or_erspan_by_the_gre_protocol),
	TU_TEST(cut_tunnels_fall_back_to_outer_flow),
	TU_TEST(inner_headers_past_outer_datagram_fall_back),
	TU_TEST(unreadable_tunnels_fall_back_to_outer_flow),
	TU_TEST(ignored_tunnel_bits_keep_the_inner_flow),
	TU_TEST(inner_extension_header_chains),
	TU_TEST(fragmented_outer_datagram_falls_back),
	TU_TEST(tunnel_frames_ending_in_errors_are_counted_once),
	TU_TEST(fast_program_counts_tunnels_as_classify_decides),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
