// SPDX-License-Identifier: GPL-2.0
/* Program-level tests of the steering program: crafted frames go through
 * the real cpusteer_steer (and cpusteer_notouch) with BPF_PROG_TEST_RUN, on
 * an instance loaded with record_decisions, so every check reads what the
 * kernel program itself chose: verdict, CPU, bucket, hash and flow key.
 *
 * Each instance is configured the way the commands do it: steer_opts from
 * option strings, steer_opts_finish, then instance_apply on a fresh table.
 * The machine has CPUs 0 and 1; every instance steers over "0-1" with a
 * fixed key, so results are reproducible from run to run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cpuset.h"
#include "indirection.h"
#include "instance.h"
#include "log.h"
#include "options.h"
#include "frame_builder.h"
#include "steer.skel.h"
#include "test_util.h"

#define KEY_A "0123456789abcdef0fedcba987654321"
#define KEY_B "a5a5a5a55a5a5a5a3c3c3c3cc3c3c3c3"

#define ETH_HLEN 14
#define FRAME_CAP 512

/* ---- a steering instance configured as the commands configure one ---- */

struct env {
	struct steer_instance in;
	struct steer_opts o;
	__u32 *table;
	bool loaded;
};

/* Only options the tests get right; a failure here is a broken test. */
static void env_opt(struct env *e, const char *name, const char *arg)
{
	if (cli_set_option(steer_options, &e->o, name, arg)) {
		printf("#   --%s '%s' was refused, though valid\n", name, arg ? arg : "");
		tu_failures++;
	}
}

/* CPUs 0-1 and KEY_A; callers add or override options before env_start. */
static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	env_opt(e, "cpus", "0-1");
	env_opt(e, "key", KEY_A);
}

static int env_start(struct env *e)
{
	struct cpumap_opts cm = { .qsize = 64, .remote = REMOTE_NONE };
	struct instance_target t = { .cpus = &e->o.cpus, .cfg = &e->o.cfg, .cm = &cm };
	__u32 i;
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
	err = instance_open(&e->in, true, false);
	if (err)
		return err;
	e->loaded = true;
	t.table = e->table;
	return instance_converge(&e->in, &t);
}

static void env_stop(struct env *e)
{
	if (e->loaded)
		instance_close(&e->in);
	e->loaded = false;
	free(e->table);
	e->table = NULL;
}

/* The steering counters summed over CPUs, and the redirects per target
 * CPU (the tests use CPUs 0 and 1) and in all.
 */
struct counts {
	struct cpusteer_counters c;
	__u64 to[2];
	__u64 redirected;
};

static int read_counts(struct env *e, struct counts *n)
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

#define ENV_START(e)                                                               \
	do {                                                                       \
		int _err = env_start(e);                                           \
		if (_err) {                                                        \
			printf("#   cannot set up the steering instance: %s\n",     \
			       strerror(-_err));                                   \
			tu_failures++;                                             \
			env_stop(e);                                               \
			return;                                                    \
		}                                                                  \
	} while (0)

/* ---- running frames ---- */

struct result {
	int err;		/* negative errno of the test run itself */
	__u32 retval;		/* XDP verdict */
	struct cpusteer_decision d;
};

static struct result run_frame_n(struct env *e, bool notouch, const void *frame,
				 __u32 len, __u32 repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .repeat = repeat);
	struct result r = {};

	if (instance_clear_decision(&e->in)) {
		r.err = -errno;
		return r;
	}
	if (bpf_prog_test_run_opts(instance_prog_fd(&e->in, notouch), &opts)) {
		r.err = -errno;
		return r;
	}
	r.retval = opts.retval;
	if (instance_read_decision(&e->in, &r.d))
		r.err = -errno;
	return r;
}

static struct result run_frame(struct env *e, const void *frame, __u32 len)
{
	return run_frame_n(e, false, frame, len, 1);
}

static size_t build(const struct pkt_spec *s, __u8 *buf)
{
	size_t len = pkt_build(s, buf, FRAME_CAP);

	if (!len) {
		printf("#   pkt_build refused a spec\n");
		tu_failures++;
	}
	return len;
}

static struct result run_spec(struct env *e, const struct pkt_spec *s)
{
	__u8 frame[FRAME_CAP];
	size_t len = build(s, frame);

	return run_frame(e, frame, len);
}

/* ---- what a result must look like ---- */

static void expect_redirect(const struct result *r, const char *what)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s: test run", what);
	ASSERT_EQ(r->err, 0, buf);
	snprintf(buf, sizeof(buf), "%s: verdict (4 = redirect)", what);
	ASSERT_EQ(r->retval, XDP_REDIRECT, buf);
	snprintf(buf, sizeof(buf), "%s: recorded outcome", what);
	ASSERT_EQ(r->d.outcome, CPUSTEER_OUT_REDIRECT, buf);
}

static void expect_pass(const struct result *r, __u32 reason, const char *what)
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

/* `got` must be redirected exactly where `want` was: same hash, same CPU. */
static void expect_same_place(const struct result *want, const struct result *got,
			      const char *what)
{
	char buf[160];

	expect_redirect(got, what);
	snprintf(buf, sizeof(buf), "%s: hash", what);
	ASSERT_EQ(got->d.hash, want->d.hash, buf);
	snprintf(buf, sizeof(buf), "%s: bucket", what);
	ASSERT_EQ(got->d.bucket, want->d.bucket, buf);
	snprintf(buf, sizeof(buf), "%s: cpu", what);
	ASSERT_EQ(got->d.cpu, want->d.cpu, buf);
}

static bool same_key(const struct cpusteer_flow_key *a, const struct cpusteer_flow_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* ---- deterministic pseudo-random flows ---- */

/* Flow i of a random population: random addresses and ports, UDP or TCP,
 * IPv4 or IPv6 by `family` (0: alternate).
 */
static void random_flow(struct pkt_spec *s, int family)
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

/* ---- VLAN ---- */

static void add_vlan(struct pkt_spec *s, __u16 tpid, __u16 tci)
{
	s->vlan_tpid[s->nvlan] = tpid;
	s->vlan_tci[s->nvlan] = tci;
	s->nvlan++;
}

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

static void ipv4_truncated_header_passes_as_truncated_l3(void)
{
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct result r;
	char what[64];
	size_t len, cut;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	build(&s, frame);
	for (cut = ETH_HLEN; cut < ETH_HLEN + 20; cut++) {
		r = run_frame(&e, frame, cut);
		snprintf(what, sizeof(what), "IPv4 cut at %zu bytes", cut);
		expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, what);
	}
	/* The fixed 20 bytes are there but the options IHL promises are not. */
	s.ipv4_options_len = 40;
	len = build(&s, frame);
	for (cut = ETH_HLEN + 20; cut < ETH_HLEN + 60; cut += 3) {
		r = run_frame(&e, frame, cut);
		snprintf(what, sizeof(what), "ihl 15 cut at %zu of %zu bytes", cut, len);
		expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, what);
	}
	env_stop(&e);
}

/* ---- IPv6 extension headers ---- */

static const __u8 ext_cycle[] = { 0, 43, 60 };	/* hop-by-hop, routing, dest */

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

static void ipv6_truncated_ext_header_passes(void)
{
	struct env e;
	struct pkt_spec s;
	__u8 frame[FRAME_CAP];
	struct result r;
	char what[64];
	size_t cut, first = ETH_HLEN + 40;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 3;
	s.ext[0] = 0;
	s.ext[1] = 43;
	s.ext[2] = 60;
	build(&s, frame);
	/* Every cut inside the chain: within the first, second or third. */
	for (cut = first; cut < first + 3 * 8; cut++) {
		r = run_frame(&e, frame, cut);
		snprintf(what, sizeof(what), "chain of 3 cut at %zu bytes", cut);
		expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, what);
	}
	/* A fragment header cut short. */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.fragment = true;
	s.more_fragments = true;
	build(&s, frame);
	r = run_frame(&e, frame, first + 5);
	expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "fragment header cut at 5 of 8 bytes");
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
	static const __u16 types[] = { 0, 0x0800, 0x86dd, 0x8100, 0x88a8 };
	struct env e;
	__u8 frame[64];
	struct result r;
	int len, n, t, i, bad = 0, redirected = 0, total = 0;

	env_init(&e);
	ENV_START(&e);
	rng_seed(5);
	for (len = ETH_HLEN; len <= 60; len++) {
		for (t = 0; t < 5; t++) {
			for (n = 0; n < 20; n++) {
				for (i = 0; i < len; i++)
					frame[i] = rng();
				if (types[t]) {	/* steer into the parsers' paths */
					frame[12] = types[t] >> 8;
					frame[13] = types[t] & 0xff;
					if (types[t] == 0x0800 && n & 1)
						frame[ETH_HLEN] = 0x45;
					if (types[t] == 0x86dd && n & 1)
						frame[ETH_HLEN] = 0x60;
				}
				r = run_frame(&e, frame, len);
				total++;
				redirected += r.retval == XDP_REDIRECT;
				if (!pass_or_redirect(&r) && bad++ < 5)
					printf("#   %d random bytes (type %#x): err %d, verdict %u, outcome %u\n",
					       len, types[t], r.err, r.retval, r.d.outcome);
			}
		}
	}
	printf("#   %d of %d random frames redirected\n", redirected, total);
	ASSERT_EQ(bad, 0, "random frames neither passed nor redirected");
	ASSERT_TRUE(redirected > 0, "some random IPv4 frames make it to a CPU");
	env_stop(&e);
}

/* Each prefix of a real frame passes while a header the key needs is cut,
 * and lands where the whole frame lands once it is all there.
 */
static void truncated_real_frames_pass_or_redirect(void)
{
	struct env e;
	struct pkt_spec specs[8];
	__u8 frame[FRAME_CAP];
	struct result whole, r;
	size_t len, cut, need[8];
	int i, bad = 0;

	env_init(&e);
	ENV_START(&e);
	pkt_spec_init(&specs[0], 4, IPPROTO_UDP);
	need[0] = ETH_HLEN + 20 + 4;
	pkt_spec_init(&specs[1], 4, IPPROTO_TCP);
	specs[1].ipv4_options_len = 12;
	add_vlan(&specs[1], 0x8100, 9);
	need[1] = ETH_HLEN + 4 + 32 + 4;
	pkt_spec_init(&specs[2], 6, IPPROTO_UDP);
	specs[2].next = 2;
	specs[2].ext[0] = 0;
	specs[2].ext[1] = 43;
	need[2] = ETH_HLEN + 40 + 16 + 4;
	pkt_spec_init(&specs[3], 6, IPPROTO_SCTP);
	add_vlan(&specs[3], 0x88a8, 1);
	add_vlan(&specs[3], 0x8100, 2);
	need[3] = ETH_HLEN + 8 + 40 + 4;
	pkt_spec_init(&specs[4], 4, IPPROTO_UDP);
	specs[4].fragment = true;
	specs[4].frag_offset = 100;
	need[4] = ETH_HLEN + 20;
	pkt_spec_init(&specs[5], 6, IPPROTO_TCP);
	specs[5].fragment = true;
	specs[5].more_fragments = true;
	need[5] = ETH_HLEN + 40 + 8;
	pkt_spec_init(&specs[6], 4, IPPROTO_ICMP);
	need[6] = ETH_HLEN + 20;
	pkt_spec_init(&specs[7], 6, IPPROTO_ICMPV6);
	need[7] = ETH_HLEN + 40;

	for (i = 0; i < 8; i++) {
		len = build(&specs[i], frame);
		whole = run_frame(&e, frame, len);
		expect_redirect(&whole, "whole frame");
		for (cut = ETH_HLEN; cut < len; cut++) {
			r = run_frame(&e, frame, cut);
			if (!pass_or_redirect(&r) ||
			    (cut < need[i] && r.retval != XDP_PASS) ||
			    (cut >= need[i] && (r.retval != XDP_REDIRECT || r.d.hash != whole.d.hash))) {
				if (bad++ < 5)
					printf("#   frame %d cut at %zu of %zu (key complete at %zu): err %d, verdict %u, hash %#x vs %#x\n",
					       i, cut, len, need[i], r.err, r.retval, r.d.hash,
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

/* ---- counters ---- */

static int cpumap_delete(struct env *e, __u32 cpu)
{
	return bpf_map_delete_elem(e->in.maps.cpu_map, &cpu);
}

/* Sends one frame `times` times in one test run; counts what the kernel
 * took, and checks the verdict the program gave.
 */
static struct result send_times(struct env *e, const __u8 *frame, size_t len, __u32 times,
				__u64 *sent, const char *what)
{
	struct result r = run_frame_n(e, false, frame, len, times);

	ASSERT_EQ(r.err, 0, what);
	if (!r.err)
		*sent += times;
	return r;
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
	r = send_times(&e, frame, ETH_HLEN + 22, 5, &sent, "TCP ports cut");
	expect_pass(&r, CPUSTEER_PASS_TRUNC_L4, "TCP ports cut");
	want_pass[CPUSTEER_PASS_TRUNC_L4] += 5;
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

static void notouch_redirects_round_robin_over_buckets(void)
{
	struct env e;
	__u8 frame[ETH_HLEN + 4] = { 0 };	/* never read: need not parse */
	struct result r;
	cpu_set_t old, one;
	__u32 hits[8] = {}, per_cpu[2] = {}, prev = ~0u, steps_bad = 0, bad = 0, i;
	bool pinned;

	env_init(&e);
	env_opt(&e, "buckets", "8");
	ENV_START(&e);
	/* The round robin runs on a per-CPU counter: stay on one CPU. */
	pinned = !sched_getaffinity(0, sizeof(old), &old) && sched_getcpu() >= 0;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	pinned = pinned && !sched_setaffinity(0, sizeof(one), &one);
	ASSERT_TRUE(pinned, "pin the test to the CPU it runs on");
	for (i = 0; i < 64; i++) {
		r = run_frame_n(&e, true, frame, sizeof(frame), 1);
		if (r.err || r.retval != XDP_REDIRECT || r.d.outcome != CPUSTEER_OUT_REDIRECT ||
		    r.d.bucket >= 8) {
			if (bad++ < 3)
				printf("#   run %u: err %d, verdict %u, outcome %u, bucket %u\n", i,
				       r.err, r.retval, r.d.outcome, r.d.bucket);
			continue;
		}
		hits[r.d.bucket]++;
		if (r.d.cpu < 2)
			per_cpu[r.d.cpu]++;
		ASSERT_EQ(r.d.cpu, e.table[r.d.bucket], "notouch cpu is its bucket's entry");
		if (prev != ~0u && r.d.bucket != (prev + 1) % 8)
			steps_bad++;
		prev = r.d.bucket;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	ASSERT_EQ(bad, 0, "notouch runs not redirected");
	ASSERT_EQ(steps_bad, 0, "consecutive frames not on consecutive buckets");
	for (i = 0; i < 8; i++)
		ASSERT_EQ(hits[i], 8, "frames per bucket over 64");
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
	TU_TEST(ipv4_truncated_header_passes_as_truncated_l3),
	TU_TEST(ipv6_ext_headers_do_not_change_hash),
	TU_TEST(ipv6_ext_header_length_field_is_honoured),
	TU_TEST(ipv6_nine_ext_headers_pass_as_ext_headers),
	TU_TEST(ipv6_truncated_ext_header_passes),
	TU_TEST(ttl_tos_id_and_flow_label_do_not_move_flow),
	TU_TEST(ipv4_fragments_of_one_datagram_share_cpu),
	TU_TEST(ipv6_fragments_of_one_datagram_share_cpu),
	TU_TEST(sctp_ports_are_parsed),
	TU_TEST(icmp_hashes_on_addresses_and_protocol),
	TU_TEST(same_flow_in_any_wrapping_lands_on_one_cpu),
	TU_TEST(symmetric_mode_maps_both_directions_alike),
	TU_TEST(asymmetric_mode_tells_directions_apart),
	TU_TEST(key_change_moves_about_half_of_flows),
	TU_TEST(same_key_gives_identical_placement),
	TU_TEST(flow_cpu_is_table_entry_of_its_bucket),
	TU_TEST(weights_3_1_give_cpu0_three_quarters),
	TU_TEST(ports_spread_flows_of_two_hosts_siphash13),
	TU_TEST(ports_spread_flows_of_two_hosts_jhash),
	TU_TEST(random_short_frames_pass_or_redirect),
	TU_TEST(truncated_real_frames_pass_or_redirect),
	TU_TEST(frame_shorter_than_ethernet_is_refused),
	TU_TEST(arp_passes_as_non_ip_by_default),
	TU_TEST(arp_redirects_to_non_ip_cpu),
	TU_TEST(counters_reconcile_with_frames_sent),
	TU_TEST(bucket_without_cpumap_entry_passes_as_error),
	TU_TEST(bucket_naming_unknown_cpu_passes_as_error),
	TU_TEST(config_change_never_tears_a_decision),
	TU_TEST(notouch_redirects_round_robin_over_buckets),
};

int main(void)
{
	/* libbpf's own messages only on request, as in cpusteer -v. */
	log_verbose = getenv("CPUSTEER_TEST_VERBOSE") != NULL;
	log_setup_libs();
	return tu_run(tests, ARRAY_SIZE(tests));
}
