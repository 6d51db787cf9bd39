// SPDX-License-Identifier: GPL-2.0
/* The fixture of the steering program tests: what each function
 * promises is said at its declaration, in steer_fixture.h.
 */
/* tu_failures and rng_state are the test program's, one of each
 * (test_util.h): a failure recorded here fails the test that called, and
 * fixture_random_flow() goes on with the sequence that test seeded.
 */
#define TU_STATE_ELSEWHERE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "indirection.h"
#include "log.h"
#include "steer_fixture.h"

/* ---- a steering instance configured as the commands configure one ---- */

void fixture_opt(struct fixture *e, const char *name, const char *arg)
{
	if (steer_opts_set(&e->o, name, arg)) {
		printf("#   --%s '%s' was refused, though valid\n", name, arg ? arg : "");
		tu_failures++;
	}
}

/* CPUSTEER_TEST_HASH runs every test that does not choose a hash under
 * that family instead of the default (selftests/test_compilers.sh does).
 */
void fixture_init(struct fixture *e)
{
	const char *hash = getenv("CPUSTEER_TEST_HASH");

	memset(e, 0, sizeof(*e));
	steer_opts_init(&e->o);
	fixture_opt(e, "cpus", "0-1");
	fixture_opt(e, "key", FIXTURE_KEY_A);
	if (hash && *hash)
		fixture_opt(e, "hash", hash);
}

int fixture_start(struct fixture *e)
{
	struct cpumap_opts cm = { .qsize = 64, .remote = REMOTE_NONE };
	struct instance_target t = { .cpus = &e->o.cpus, .cfg = &e->o.cfg, .cm = &cm };
	__u32 i, count;
	int err;

	err = steer_opts_finish(&e->o);
	if (err)
		return err;
	e->table = malloc(e->o.cfg.nbuckets * sizeof(*e->table));
	if (!e->table)
		return -ENOMEM;
	for (i = 0; i < e->o.cfg.nbuckets; i++)
		e->table[i] = BUCKET_UNOWNED;
	indirection_rebalance(e->table, e->o.cfg.nbuckets, &e->o.cpus);
	count = e->o.cfg.bucket_stats ? e->o.cfg.nbuckets : 0;
	err = e->with_steer ? instance_open_both(&e->in, count)
			    : instance_open(&e->in, true, false, count);
	if (err)
		return err;
	e->loaded = true;
	t.table = e->table;
	return instance_converge(&e->in, &t);
}

void fixture_stop(struct fixture *e)
{
	if (e->loaded)
		instance_close(&e->in);
	e->loaded = false;
	free(e->table);
	e->table = NULL;
}

int fixture_read_counts(struct fixture *e, struct fixture_counts *n)
{
	__u64 *per = calloc(e->in.ncpus, sizeof(*per));
	int err = per ? instance_read_counters(&e->in, &n->c, per) : -ENOMEM, cpu;

	memset(n->to, 0, sizeof(n->to));
	n->redirected = 0;
	for (cpu = 0; !err && cpu < e->in.ncpus; cpu++) {
		if (cpu < 2)
			n->to[cpu] = per[cpu];
		n->redirected += per[cpu];
	}
	free(per);
	return err;
}

/* Every field of struct fixture_counts is a __u64 count, so the difference is
 * taken word by word.
 */
struct fixture_counts fixture_counts_since(const struct fixture_counts *before,
					   const struct fixture_counts *after)
{
	const __u64 *b = (const __u64 *)before, *a = (const __u64 *)after;
	struct fixture_counts d;
	__u64 *out = (__u64 *)&d;
	size_t i;

	_Static_assert(sizeof(d) % sizeof(__u64) == 0, "struct fixture_counts is all __u64");
	for (i = 0; i < sizeof(d) / sizeof(__u64); i++)
		out[i] = a[i] - b[i];
	return d;
}

bool fixture_same_counts(const struct fixture_counts *a, const struct fixture_counts *b)
{
	return !memcmp(a, b, sizeof(*a));
}

const char *fixture_format_counts(const struct fixture_counts *d, char *buf, size_t len)
{
	size_t used = 0;
	int i;

#define PUT(fmt, ...)                                                              \
	do {                                                                       \
		if (used < len)                                                    \
			used += snprintf(buf + used, len - used, "%s" fmt,         \
					 used ? ", " : "", __VA_ARGS__);           \
	} while (0)
	buf[0] = '\0';
	if (d->c.rx_packets)
		PUT("rx %llu", (unsigned long long)d->c.rx_packets);
	for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
		if (d->c.passed[i])
			PUT("passed[%d] %llu", i, (unsigned long long)d->c.passed[i]);
	for (i = 0; i < CPUSTEER_ERRORS; i++)
		if (d->c.errors[i])
			PUT("errors[%d] %llu", i, (unsigned long long)d->c.errors[i]);
	if (d->c.seen_fragments)
		PUT("fragments %llu", (unsigned long long)d->c.seen_fragments);
	if (d->c.seen_vlan)
		PUT("vlan %llu", (unsigned long long)d->c.seen_vlan);
	if (d->c.seen_l3_only)
		PUT("l3_only %llu", (unsigned long long)d->c.seen_l3_only);
	for (i = 0; i < 2; i++)
		if (d->to[i])
			PUT("to[%d] %llu", i, (unsigned long long)d->to[i]);
	if (d->redirected != d->to[0] + d->to[1])
		PUT("redirected %llu", (unsigned long long)d->redirected);
#undef PUT
	return used ? buf : "nothing";
}

/* ---- running frames ---- */

/* The program with the decision record, which nearly every test reads. */
static int classify_fd(struct fixture *e)
{
	return instance_prog_fd(&e->in, false);
}

struct fixture_result fixture_run_frame_how(struct fixture *e, const void *frame, __u32 len,
					    struct fixture_run_how how)
{
	struct xdp_md ctx = { .data_end = how.linear };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .repeat = how.repeat);
	struct fixture_result r = {};

	/* The kernel puts ctx_in's data_end bytes in the linear part. */
	if (how.linear) {
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
	}
	if (instance_clear_decision(&e->in)) {
		r.err = -errno;
		return r;
	}
	if (bpf_prog_test_run_opts(how.prog ? how.prog : classify_fd(e), &opts)) {
		r.err = -errno;
		return r;
	}
	r.retval = opts.retval;
	if (instance_read_decision(&e->in, &r.d))
		r.err = -errno;
	return r;
}

struct fixture_result fixture_run_frame(struct fixture *e, const void *frame, __u32 len)
{
	return fixture_run_frame_how(e, frame, len, (struct fixture_run_how){ 0 });
}

bool fixture_kernel_splits_test_frames(void)
{
	static int answer = -1;
	__u8 frame[ETH_HLEN + 64] = { 0 };
	struct fixture_result r;
	struct fixture e;

	if (answer >= 0)
		return answer;
	fixture_init(&e);
	if (fixture_start(&e)) {
		fixture_stop(&e);
		return false;	/* the test that asks fails on its own start */
	}
	r = fixture_run_frame_how(&e, frame, sizeof(frame),
				  (struct fixture_run_how){ .linear = ETH_HLEN });
	fixture_stop(&e);
	answer = r.err != -EINVAL;
	return answer;
}

size_t fixture_build(const struct pkt_spec *s, __u8 *buf)
{
	size_t len = pkt_build(s, buf, FIXTURE_FRAME_CAP);

	if (!len) {
		printf("#   pkt_build refused a spec\n");
		tu_failures++;
	}
	return len;
}

struct fixture_result fixture_run_spec(struct fixture *e, const struct pkt_spec *s)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	size_t len = fixture_build(s, frame);

	return fixture_run_frame(e, frame, len);
}

/* ---- what a result must look like ---- */

void fixture_expect_redirect(const struct fixture_result *r, const char *what)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s: test run", what);
	ASSERT_EQ(r->err, 0, buf);
	snprintf(buf, sizeof(buf), "%s: verdict (4 = redirect)", what);
	ASSERT_EQ(r->retval, XDP_REDIRECT, buf);
	snprintf(buf, sizeof(buf), "%s: recorded outcome", what);
	ASSERT_EQ(r->d.outcome, CPUSTEER_OUT_REDIRECT, buf);
}

void fixture_expect_pass(const struct fixture_result *r, __u32 reason, const char *what)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s: test run", what);
	ASSERT_EQ(r->err, 0, buf);
	snprintf(buf, sizeof(buf), "%s: verdict (2 = pass)", what);
	ASSERT_EQ(r->retval, XDP_PASS, buf);
	snprintf(buf, sizeof(buf), "%s: recorded outcome (1 = pass)", what);
	ASSERT_EQ(r->d.outcome, CPUSTEER_OUT_PASS, buf);
	snprintf(buf, sizeof(buf), "%s: pass reason", what);
	ASSERT_EQ(r->d.reason, reason, buf);
}

void fixture_expect_same_place(const struct fixture_result *want, const struct fixture_result *got,
			       const char *what)
{
	char buf[160];

	fixture_expect_redirect(got, what);
	snprintf(buf, sizeof(buf), "%s: hash", what);
	ASSERT_EQ(got->d.hash, want->d.hash, buf);
	snprintf(buf, sizeof(buf), "%s: bucket", what);
	ASSERT_EQ(got->d.bucket, want->d.bucket, buf);
	snprintf(buf, sizeof(buf), "%s: cpu", what);
	ASSERT_EQ(got->d.cpu, want->d.cpu, buf);
}

bool fixture_same_key(const struct cpusteer_flow_key *a, const struct cpusteer_flow_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* ---- frames whose IP length fields are set by hand ---- */

size_t fixture_ip_fixed_header_len(const struct pkt_spec *s)
{
	return s->family == 4 ? 20 : 40;
}

size_t fixture_pad_frame(__u8 *frame, size_t len, size_t to, __u8 fill)
{
	if (to <= len)
		return len;
	memset(frame + len, fill, to - len);
	return to;
}

size_t fixture_cut_frame(const struct pkt_spec *s, const __u8 *frame, size_t cut,
			 bool length_fits, __u8 *out)
{
	size_t l3 = pkt_l3_offset(s);

	memcpy(out, frame, cut);
	if (length_fits && cut >= l3 + fixture_ip_fixed_header_len(s))
		pkt_set_ip_length(s, out, cut - l3);
	return cut;
}

/* ---- deterministic pseudo-random flows ---- */

void fixture_random_flow(struct pkt_spec *s, int family)
{
	int fam = family ? family : (rng() & 1 ? 6 : 4);
	int i;

	pkt_spec_init(s, fam, rng() & 1 ? IPPROTO_TCP : IPPROTO_UDP);
	if (fam == 4) {
		pkt_set_addr4(s->saddr, 0x0a000000 | (rng() & 0xffffff));
		pkt_set_addr4(s->daddr, 0xc0a80000 | (rng() & 0xffff));
	} else {
		for (i = 0; i < 16; i++) {
			s->saddr[i] = i < 2 ? 0xfd : rng();
			s->daddr[i] = i < 2 ? 0xfd : rng();
		}
	}
	s->sport = rng();
	s->dport = rng();
}

/* ---- VLAN tags and IPv6 extension headers ---- */

void fixture_add_vlan(struct pkt_spec *s, __u16 tpid, __u16 tci)
{
	s->vlan_tpid[s->nvlan] = tpid;
	s->vlan_tci[s->nvlan] = tci;
	s->nvlan++;
}

const __u16 fixture_vlan_tpids[4] = { 0x9200, 0x9100, 0x88a8, 0x8100 };

void fixture_add_vlan_stack(struct pkt_spec *s, int n, int first)
{
	int i;

	for (i = 0; i < n; i++)
		fixture_add_vlan(s, fixture_vlan_tpids[(first + i) % 4], 10 + i);
}

const __u8 fixture_ext_cycle[3] = { 0, 43, 60 };

/* ---- IP length fields ---- */

const struct fixture_length_case fixture_length_cases[] = {
	{ .name = "IPv4 Total Length 0", .family = 4, .proto = IPPROTO_UDP,
	  .dgram_len = 0, .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv4 Total Length 19, below the header", .family = 4,
	  .proto = IPPROTO_UDP, .dgram_len = 19, .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv4 Total Length 20 under IHL 6", .family = 4, .proto = IPPROTO_UDP,
	  .ipv4_options_len = 4, .dgram_len = 20, .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv4 Total Length one past the frame", .family = 4,
	  .proto = IPPROTO_UDP, .dgram_len = 29, .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv4 Total Length one past the padded frame", .family = 4,
	  .proto = IPPROTO_UDP, .dgram_len = 47, .pad_to = 60,
	  .reason = CPUSTEER_PASS_BAD_LENGTH },
	/* The frame still holds the ports past the datagram's end. */
	{ .name = "IPv4 datagram ends in its UDP ports, frame padded", .family = 4,
	  .proto = IPPROTO_UDP, .dgram_len = 22, .pad_to = 60,
	  .reason = CPUSTEER_PASS_TRUNC_L4 },
	{ .name = "IPv4 datagram ends with its header, TCP frame padded", .family = 4,
	  .proto = IPPROTO_TCP, .dgram_len = 20, .pad_to = 60,
	  .reason = CPUSTEER_PASS_TRUNC_L4 },
	{ .name = "IPv6 Payload Length one past the frame", .family = 6,
	  .proto = IPPROTO_UDP, .dgram_len = 49, .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv6 Payload Length past the padded frame", .family = 6,
	  .proto = IPPROTO_UDP, .dgram_len = 120, .pad_to = 100,
	  .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv6 payload ends in its hop-by-hop header", .family = 6,
	  .proto = IPPROTO_UDP, .hop_by_hop = true, .dgram_len = 44,
	  .reason = CPUSTEER_PASS_EXT_HDRS },
	{ .name = "IPv6 payload ends in its 16-byte hop-by-hop header", .family = 6,
	  .proto = IPPROTO_UDP, .hop_by_hop = true, .hop_len = 1, .dgram_len = 52,
	  .reason = CPUSTEER_PASS_EXT_HDRS },
	{ .name = "IPv6 payload ends in its atomic fragment header", .family = 6,
	  .proto = IPPROTO_UDP, .fragment = true, .dgram_len = 47,
	  .reason = CPUSTEER_PASS_EXT_HDRS },
	{ .name = "IPv6 payload ends in its UDP ports", .family = 6, .proto = IPPROTO_UDP,
	  .dgram_len = 42, .reason = CPUSTEER_PASS_TRUNC_L4 },
	{ .name = "IPv6 payload ends after hop-by-hop, before the ports", .family = 6,
	  .proto = IPPROTO_UDP, .hop_by_hop = true, .dgram_len = 48,
	  .reason = CPUSTEER_PASS_TRUNC_L4 },
	/* Not a jumbogram: that needs a hop-by-hop header. */
	{ .name = "IPv6 Payload Length 0, UDP next", .family = 6, .proto = IPPROTO_UDP,
	  .dgram_len = 40, .reason = CPUSTEER_PASS_TRUNC_L4 },
};

const size_t fixture_nlength_cases = ARRAY_SIZE(fixture_length_cases);

size_t fixture_build_length_case(const struct fixture_length_case *c, __u8 *frame)
{
	struct pkt_spec s;
	size_t len;

	pkt_spec_init(&s, c->family, c->proto);
	s.payload_len = 0;
	s.ipv4_options_len = c->ipv4_options_len;
	if (c->hop_by_hop) {
		s.ext[0] = 0;
		s.next = 1;
	}
	s.fragment = c->fragment;
	len = fixture_build(&s, frame);
	if (c->hop_by_hop)
		frame[pkt_l3_offset(&s) + 40 + 1] = c->hop_len;
	pkt_set_ip_length(&s, frame, c->dgram_len);
	return fixture_pad_frame(frame, len, c->pad_to, 0xa5);
}

/* ---- frames the program must survive ---- */

const __u16 fixture_random_types[9] = { 0, 0x0800, 0x86dd, 0x8100, 0x88a8, 0x9100, 0x9200,
					    0x8864, 0x8847 };

static void put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

void fixture_random_frame(__u8 *frame, size_t len, __u16 type, int kind)
{
	size_t i;

	for (i = 0; i < len; i++)
		frame[i] = rng();
	if (!type)
		return;
	put_be16(frame + 12, type);
	if (kind >= 1 && type == 0x0800)
		frame[ETH_HLEN] = 0x45;
	if (kind >= 1 && type == 0x86dd)
		frame[ETH_HLEN] = 0x60;
	if (kind == 2 && type == 0x0800 && len >= ETH_HLEN + 4)
		put_be16(frame + ETH_HLEN + 2, len - ETH_HLEN);
	if (kind == 2 && type == 0x86dd && len >= ETH_HLEN + 40)
		put_be16(frame + ETH_HLEN + 4, len - ETH_HLEN - 40);
}

void fixture_cut_specs(struct pkt_spec *specs)
{
	pkt_spec_init(&specs[0], 4, IPPROTO_UDP);
	pkt_spec_init(&specs[1], 4, IPPROTO_TCP);
	specs[1].ipv4_options_len = 12;
	fixture_add_vlan(&specs[1], 0x8100, 9);
	pkt_spec_init(&specs[2], 6, IPPROTO_UDP);
	specs[2].next = 2;
	specs[2].ext[0] = 0;
	specs[2].ext[1] = 43;
	pkt_spec_init(&specs[3], 6, IPPROTO_SCTP);
	fixture_add_vlan_stack(&specs[3], CPUSTEER_MAX_VLAN_TAGS, 0);
	pkt_spec_init(&specs[4], 4, IPPROTO_UDP);
	specs[4].fragment = true;
	specs[4].frag_offset = 100;
	pkt_spec_init(&specs[5], 6, IPPROTO_TCP);
	specs[5].fragment = true;
	specs[5].more_fragments = true;
	pkt_spec_init(&specs[6], 4, IPPROTO_ICMP);
	pkt_spec_init(&specs[7], 6, IPPROTO_ICMPV6);
	pkt_spec_init(&specs[8], 4, IPPROTO_TCP);
	fixture_add_vlan(&specs[8], 0x88a8, 7);
	specs[8].pppoe = true;
	pkt_spec_init(&specs[9], 6, IPPROTO_TCP);
	specs[9].nmpls = 3;
}

/* ---- multi-buffer frames ---- */

const struct fixture_split_case fixture_split_cases[] = {
	{ .name = "VLAN tag past the linear part", .family = 4, .proto = IPPROTO_UDP,
	  .nvlan = 1, .linear = 16, .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv4 fixed header past the linear part", .family = 4,
	  .proto = IPPROTO_UDP, .linear = 24, .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv4 options past the linear part", .family = 4, .proto = IPPROTO_UDP,
	  .ipv4_options_len = 40, .linear = 34, .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv4 ports past the linear part", .family = 4, .proto = IPPROTO_UDP,
	  .linear = 36, .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv4 payload in fragments", .family = 4, .proto = IPPROTO_TCP,
	  .linear = 38, .reason = FIXTURE_STEERED },
	{ .name = "IPv4 Total Length one past the whole frame", .family = 4,
	  .proto = IPPROTO_UDP, .dgram_extra = 1, .linear = 38,
	  .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv6 fixed header past the linear part", .family = 6,
	  .proto = IPPROTO_UDP, .linear = 40, .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv6 first extension header cut by the linear part", .family = 6,
	  .proto = IPPROTO_UDP, .next = 3, .linear = 57,
	  .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv6 extension headers on in fragments", .family = 6,
	  .proto = IPPROTO_UDP, .next = 3, .linear = 62,
	  .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv6 ports past the linear part", .family = 6, .proto = IPPROTO_UDP,
	  .next = 3, .linear = 80, .reason = CPUSTEER_PASS_HEADERS_IN_FRAGS },
	{ .name = "IPv6 payload in fragments", .family = 6, .proto = IPPROTO_UDP,
	  .next = 3, .linear = 82, .reason = FIXTURE_STEERED },
	{ .name = "IPv6 Payload Length one past the whole frame", .family = 6,
	  .proto = IPPROTO_UDP, .dgram_extra = 1, .linear = 58,
	  .reason = CPUSTEER_PASS_BAD_LENGTH },
	{ .name = "IPv6 jumbogram, payload in fragments", .family = 6,
	  .proto = IPPROTO_TCP, .next = 1, .jumbogram = true, .linear = 66,
	  .reason = FIXTURE_STEERED },
};

const size_t fixture_nsplit_cases = ARRAY_SIZE(fixture_split_cases);

size_t fixture_build_split_case(const struct fixture_split_case *c, __u8 *frame)
{
	struct pkt_spec s;
	size_t len;
	int i;

	pkt_spec_init(&s, c->family, c->proto);
	s.payload_len = 200;
	for (i = 0; i < c->nvlan; i++)
		fixture_add_vlan(&s, 0x8100, 7);
	s.ipv4_options_len = c->ipv4_options_len;
	s.next = c->next;
	for (i = 0; i < c->next; i++)
		s.ext[i] = fixture_ext_cycle[i % 3];
	len = fixture_build(&s, frame);
	if (c->jumbogram)
		pkt_set_ip_length(&s, frame, 40);
	if (c->dgram_extra)
		pkt_set_ip_length(&s, frame, len - pkt_l3_offset(&s) + c->dgram_extra);
	return len;
}

/* ---- the test program ---- */

int fixture_main(const struct tu_test *tests, size_t n)
{
	log_verbose = getenv("CPUSTEER_TEST_VERBOSE") != NULL;
	log_setup_libs();
	return tu_run(tests, n);
}
