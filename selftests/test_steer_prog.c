// SPDX-License-Identifier: GPL-2.0
/* The steering programs as a whole: the counters reconcile with the
 * frames sent, a bucket without a usable CPU passes as an error, the fast
 * cpusteer_steer decides as cpusteer_classify does over every kind of
 * frame the other files send, a configuration change never tears a
 * decision, and the no-touch floor redirects round robin over the buckets.
 *
 * A file of its own because these test the programs and their maps
 * rather than what one frame parses or hashes to. The instance and the
 * frame runs, and the frame sets the agreement test sends, are
 * steer_fixture.h.
 */
#define _GNU_SOURCE
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
static int steer_fd(struct fixture *e)
{
	return bpf_program__fd(e->in.skel->progs.cpusteer_steer);
}

static int notouch_fd(struct fixture *e)
{
	return instance_prog_fd(&e->in, true);
}

/* ---- counters ---- */

static int cpumap_delete(struct fixture *e, __u32 cpu)
{
	return bpf_map_delete_elem(e->in.maps.cpu_map, &cpu);
}

/* Sends one frame as `how` says, in one test run; counts what the kernel
 * took, and checks the verdict the program gave.
 */
static struct fixture_result send_how(struct fixture *e, const __u8 *frame, size_t len,
				      struct fixture_run_how how, __u64 *sent, const char *what)
{
	struct fixture_result r = fixture_run_frame_how(e, frame, len, how);

	ASSERT_EQ(r.err, 0, what);
	if (!r.err)
		*sent += how.repeat ? how.repeat : 1;
	return r;
}

static struct fixture_result send_times(struct fixture *e, const __u8 *frame, size_t len,
					__u32 times, __u64 *sent, const char *what)
{
	return send_how(e, frame, len, (struct fixture_run_how){ .repeat = times }, sent, what);
}

static void counters_reconcile_with_frames_sent(void)
{
	__u64 want_pass[CPUSTEER_PASS_REASONS] = {}, want_err[CPUSTEER_ERRORS] = {};
	__u64 want_redir[2] = {}, sent = 0, sum = 0, want_vlan = 0, want_frag = 0, want_l3 = 0;
	struct fixture e;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_counts n;
	struct fixture_result r;
	__u32 times;
	size_t len;
	int i;

	fixture_init(&e);
	FIXTURE_START(&e);

	/* Phase 1, both CPUs present: flows, some sent three times. */
	rng_seed(6);
	for (i = 0; i < 40; i++) {
		fixture_random_flow(&s, 0);
		times = i % 4 ? 1 : 3;
		r = send_times(&e, frame, fixture_build(&s, frame), times, &sent, "flow");
		fixture_expect_redirect(&r, "flow");
		if (r.d.cpu < 2)
			want_redir[r.d.cpu] += times;
	}
	/* Each pass reason, a known number of times. */
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = send_times(&e, frame, fixture_build(&s, frame), 3, &sent, "ARP");
	fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP");
	want_pass[CPUSTEER_PASS_NON_IP] += 3;

	pkt_spec_init(&s, 4, IPPROTO_UDP);
	fixture_add_vlan(&s, 0x8100, 1);
	len = fixture_build(&s, frame);
	r = send_times(&e, frame, ETH_HLEN + 2, 2, &sent, "VLAN tag cut short");
	fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L2, "VLAN tag cut short");
	want_pass[CPUSTEER_PASS_TRUNC_L2] += 2;	/* a cut tag is not a seen tag */
	r = send_times(&e, frame, len, 5, &sent, "tagged flow");
	fixture_expect_redirect(&r, "tagged flow");
	want_vlan += 5;
	if (r.d.cpu < 2)
		want_redir[r.d.cpu] += 5;

	pkt_spec_init(&s, 4, IPPROTO_TCP);
	len = fixture_build(&s, frame);
	r = send_times(&e, frame, ETH_HLEN + 10, 4, &sent, "IPv4 header cut");
	fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, "IPv4 header cut");
	want_pass[CPUSTEER_PASS_TRUNC_L3] += 4;
	r = send_times(&e, frame, ETH_HLEN + 22, 5, &sent, "TCP cut in its ports");
	fixture_expect_pass(&r, CPUSTEER_PASS_BAD_LENGTH, "TCP cut in its ports");
	want_pass[CPUSTEER_PASS_BAD_LENGTH] += 5;
	pkt_set_ip_length(&s, frame, 22);
	r = send_times(&e, frame, ETH_HLEN + 22, 3, &sent, "datagram ends in the ports");
	fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L4, "datagram ends in the ports");
	want_pass[CPUSTEER_PASS_TRUNC_L4] += 3;
	len = fixture_build(&s, frame);
	frame[ETH_HLEN] = 0x43;
	r = send_times(&e, frame, len, 6, &sent, "IHL 3");
	fixture_expect_pass(&r, CPUSTEER_PASS_BAD_L3, "IHL 3");
	want_pass[CPUSTEER_PASS_BAD_L3] += 6;

	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.next = 9;
	for (i = 0; i < 9; i++)
		s.ext[i] = 60;
	r = send_times(&e, frame, fixture_build(&s, frame), 7, &sent, "9 ext headers");
	fixture_expect_pass(&r, CPUSTEER_PASS_EXT_HDRS, "9 ext headers");
	want_pass[CPUSTEER_PASS_EXT_HDRS] += 7;

	if (fixture_kernel_splits_test_frames()) {
		pkt_spec_init(&s, 6, IPPROTO_UDP);
		s.payload_len = 200;
		r = send_how(&e, frame, fixture_build(&s, frame),
			     (struct fixture_run_how){ .repeat = 2, .linear = ETH_HLEN + 20 }, &sent,
			     "IPv6 header on in a fragment");
		fixture_expect_pass(&r, CPUSTEER_PASS_HEADERS_IN_FRAGS, "IPv6 header on in a fragment");
		want_pass[CPUSTEER_PASS_HEADERS_IN_FRAGS] += 2;
	} else {
		printf("#   no split frame: %s\n", FIXTURE_NO_SPLIT_FRAMES);
	}

	pkt_spec_init(&s, 4, IPPROTO_UDP);
	fixture_add_vlan_stack(&s, CPUSTEER_MAX_VLAN_TAGS + 1, 0);
	r = send_times(&e, frame, fixture_build(&s, frame), 8, &sent, "5 tags");
	fixture_expect_pass(&r, CPUSTEER_PASS_VLAN_DEPTH, "5 tags");
	want_pass[CPUSTEER_PASS_VLAN_DEPTH] += 8;
	want_vlan += 8;

	pkt_spec_init(&s, 4, IPPROTO_ICMP);
	r = send_times(&e, frame, fixture_build(&s, frame), 5, &sent, "ICMP");
	fixture_expect_redirect(&r, "ICMP");
	want_l3 += 5;
	if (r.d.cpu < 2)
		want_redir[r.d.cpu] += 5;

	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.fragment = true;
	s.frag_offset = 3;
	r = send_times(&e, frame, fixture_build(&s, frame), 4, &sent, "IPv6 fragment");
	fixture_expect_redirect(&r, "IPv6 fragment");
	want_frag += 4;
	if (r.d.cpu < 2)
		want_redir[r.d.cpu] += 4;

	/* Too short for the kernel: never reaches the program. */
	r = fixture_run_frame(&e, frame, 10);
	ASSERT_TRUE(r.err < 0, "10-byte frame refused");

	/* Phase 2: CPU 1 loses its cpumap entry; its flows become errors. */
	ASSERT_EQ(cpumap_delete(&e, 1), 0, "delete CPU 1's cpumap entry");
	rng_seed(6);
	for (i = 0; i < 40; i++) {
		fixture_random_flow(&s, 0);
		r = send_times(&e, frame, fixture_build(&s, frame), 1, &sent, "flow, CPU 1 gone");
		if (r.d.outcome == CPUSTEER_OUT_ERROR && r.d.reason < CPUSTEER_ERRORS)
			want_err[r.d.reason]++;
		else if (r.d.outcome == CPUSTEER_OUT_REDIRECT && r.d.cpu < 2)
			want_redir[r.d.cpu]++;
	}

	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
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
	fixture_stop(&e);
}

/* ---- failures of the table ---- */

static void bucket_without_cpumap_entry_passes_as_error(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture_counts n;
	__u32 on1 = 0, on0 = 0, bad = 0, i;

	fixture_init(&e);
	FIXTURE_START(&e);
	ASSERT_EQ(cpumap_delete(&e, 1), 0, "delete CPU 1's cpumap entry");
	rng_seed(8);
	for (i = 0; i < 200; i++) {
		fixture_random_flow(&s, 0);
		r = fixture_run_spec(&e, &s);
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
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], on1, "errors[no_cpumap_entry]");
	ASSERT_EQ(n.to[1], 0, "redirected to CPU 1");
	ASSERT_EQ(n.to[0], on0, "redirected to CPU 0");
	fixture_stop(&e);
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
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture_counts n;
	char what[64];
	int fd;
	__u32 i, b, want[CPUSTEER_ERRORS] = {};

	fixture_init(&e);
	fixture_opt(&e, "buckets", "2");
	FIXTURE_START(&e);
	fd = e.in.maps.bucket_table;
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (b = 0; b < 2; b++)
			ASSERT_EQ(bpf_map_update_elem(fd, &b, &cases[i].cpu, 0), 0, "write bucket");
		r = fixture_run_spec(&e, &s);
		snprintf(what, sizeof(what), "bucket naming CPU %u", cases[i].cpu);
		ASSERT_EQ(r.err, 0, what);
		ASSERT_EQ(r.retval, XDP_PASS, what);
		ASSERT_EQ(r.d.outcome, CPUSTEER_OUT_ERROR, what);
		ASSERT_EQ(r.d.reason, cases[i].err, what);
		want[cases[i].err]++;
	}
	ASSERT_EQ(fixture_read_counts(&e, &n), 0, "read counters");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], want[CPUSTEER_ERR_NO_CPUMAP_ENTRY],
		  "errors[no_cpumap_entry]");
	ASSERT_EQ(n.c.errors[CPUSTEER_ERR_BAD_BUCKET], want[CPUSTEER_ERR_BAD_BUCKET],
		  "errors[bad_bucket]");
	fixture_stop(&e);
}

/* ---- the fast program ---- */

/* A frame for both programs. */
struct sample {
	char name[96];
	__u8 data[FIXTURE_FRAME_CAP];
	__u32 len;
	__u32 linear;		/* as in struct fixture_run_how */
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
		smp->len = fixture_build(s, smp->data);
}

/* Every frame of the fixture_cut_specs() cut at every length, with the length
 * field as built and at the cut.
 */
static void add_cut_samples(struct sample_set *set)
{
	struct pkt_spec specs[FIXTURE_NCUT_SPECS];
	__u8 frame[FIXTURE_FRAME_CAP];
	struct sample *smp;
	size_t len, cut;
	int i, fits;

	fixture_cut_specs(specs);
	for (i = 0; i < FIXTURE_NCUT_SPECS; i++) {
		len = fixture_build(&specs[i], frame);
		for (cut = ETH_HLEN; cut <= len; cut++) {
			for (fits = 0; fits <= 1; fits++) {
				smp = sample_add(set, "frame %d cut at %zu of %zu, length %s", i,
						 cut, len, fits ? "at the cut" : "as built");
				if (!smp)
					continue;
				smp->len = fixture_cut_frame(&specs[i], frame, cut, fits, smp->data);
			}
		}
	}
}

static void add_length_samples(struct sample_set *set)
{
	const struct fixture_length_case *c;
	const struct fixture_split_case *sc;
	struct sample *smp;

	for (c = fixture_length_cases; c < fixture_length_cases + fixture_nlength_cases; c++) {
		smp = sample_add(set, "%s", c->name);
		if (smp)
			smp->len = fixture_build_length_case(c, smp->data);
	}
	for (sc = fixture_split_cases; sc < fixture_split_cases + fixture_nsplit_cases; sc++) {
		if (!fixture_kernel_splits_test_frames())
			break;
		smp = sample_add(set, "%s", sc->name);
		if (smp) {
			smp->len = fixture_build_split_case(sc, smp->data);
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
		for (t = 0; t < ARRAY_SIZE(fixture_random_types); t++) {
			for (kind = 0; kind < 3; kind++) {
				smp = sample_add(set, "%d random bytes, type %#x, kind %d", len,
						 fixture_random_types[t], kind);
				if (smp) {
					fixture_random_frame(smp->data, len, fixture_random_types[t], kind);
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
	fixture_add_vlan(&s, 0x8100, 1);
	add_spec_sample(set, &s, "802.1Q IPv4 UDP");
	fixture_add_vlan(&s, 0x8100, 2);
	add_spec_sample(set, &s, "two tags");
	fixture_add_vlan(&s, 0x9100, 3);
	fixture_add_vlan(&s, 0x9200, 4);
	add_spec_sample(set, &s, "four tags");
	fixture_add_vlan(&s, 0x88a8, 5);
	add_spec_sample(set, &s, "five tags");
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.pppoe = true;
	add_spec_sample(set, &s, "IPv6 UDP in PPPoE");
	fixture_add_vlan(&s, 0x88a8, 1);
	s.ppp_proto = 0xc021;
	add_spec_sample(set, &s, "LCP in PPPoE behind a tag");
	pkt_spec_init(&s, 4, IPPROTO_TCP);
	s.nmpls = 3;
	add_spec_sample(set, &s, "IPv4 TCP below 3 labels");
	s.nmpls = CPUSTEER_MAX_MPLS_LABELS + 1;
	add_spec_sample(set, &s, "9 labels");
	pkt_spec_init(&s, 0, 0);
	s.nmpls = 1;
	add_spec_sample(set, &s, "a control word below a label");
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
		s.ext[i] = fixture_ext_cycle[i % 3];
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
static bool programs_agree_on(struct fixture *e, const struct sample *smp,
			      struct fixture_counts *total, bool report)
{
	struct fixture_run_how fast = { .prog = steer_fd(e), .linear = smp->linear };
	struct fixture_run_how slow = { .linear = smp->linear };
	struct fixture_counts c0, c1, c2, by_classify, by_steer;
	struct fixture_result rc, rs;
	char a[256], b[256];
	bool read = !fixture_read_counts(e, &c0);
	size_t i;

	rc = fixture_run_frame_how(e, smp->data, smp->len, slow);
	read = !fixture_read_counts(e, &c1) && read;
	rs = fixture_run_frame_how(e, smp->data, smp->len, fast);
	read = !fixture_read_counts(e, &c2) && read;
	by_classify = fixture_counts_since(&c0, &c1);
	by_steer = fixture_counts_since(&c1, &c2);
	for (i = 0; i < sizeof(*total) / sizeof(__u64); i++)
		((__u64 *)total)[i] += ((__u64 *)&by_classify)[i];
	if (read && !rc.err && !rs.err && rc.retval == rs.retval &&
	    fixture_same_counts(&by_classify, &by_steer) && rc.d.outcome != ~0u && rs.d.outcome == ~0u)
		return true;
	if (report)
		printf("#   %s: classify: err %d, verdict %u, moved %s; steer: err %d, verdict %u, moved %s, %s\n",
		       smp->name, rc.err, rc.retval, fixture_format_counts(&by_classify, a, sizeof(a)),
		       rs.err, rs.retval, fixture_format_counts(&by_steer, b, sizeof(b)),
		       rs.d.outcome == ~0u ? "no record" : "wrote a record");
	return false;
}

static int disagreements(struct fixture *e, const struct sample_set *set,
			 struct fixture_counts *total)
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
static void agree_under(struct fixture *e, const struct sample_set *set,
			struct fixture_counts *total, const char *config)
{
	char what[96];

	e->with_steer = true;
	FIXTURE_START(e);
	snprintf(what, sizeof(what), "frames decided apart, %s", config);
	ASSERT_EQ(disagreements(e, set, total), 0, what);
	ASSERT_EQ(cpumap_delete(e, 1), 0, "delete CPU 1's cpumap entry");
	snprintf(what, sizeof(what), "frames decided apart, %s, CPU 1 gone", config);
	ASSERT_EQ(disagreements(e, set, total), 0, what);
	fixture_stop(e);
}

/* The fast program is the classify program without its record: for every
 * kind of frame, steered, passed for any reason or failed, the two must
 * decide alike.
 */
static void fast_program_agrees_with_classify(void)
{
	struct sample_set set = {};
	struct fixture_counts total = {};
	struct fixture e;
	char what[48];
	int i;

	add_cut_samples(&set);
	add_length_samples(&set);
	add_random_samples(&set);
	add_whole_samples(&set);
	printf("#   %zu frames\n", set.n);

	fixture_init(&e);
	agree_under(&e, &set, &total, "multilinear");
	fixture_init(&e);
	fixture_opt(&e, "hash", "siphash13");
	fixture_opt(&e, "symmetric", NULL);
	fixture_opt(&e, "buckets", "61");
	fixture_opt(&e, "non-ip", "cpu:1");
	agree_under(&e, &set, &total, "siphash13, symmetric, non-IP to CPU 1");
	fixture_init(&e);
	fixture_opt(&e, "symmetric", NULL);
	fixture_opt(&e, "buckets", "61");
	agree_under(&e, &set, &total, "multilinear, symmetric");
	free(set.v);

	/* The frames must come to every outcome, or agreement says little. */
	for (i = 0; i < CPUSTEER_PASS_REASONS; i++) {
		if (i == CPUSTEER_PASS_HEADERS_IN_FRAGS && !fixture_kernel_splits_test_frames())
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
	struct fixture tmp;
	int err;

	fixture_init(&tmp);
	fixture_opt(&tmp, "key", key);
	fixture_opt(&tmp, "buckets", buckets);
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

static bool placed_as(const struct fixture_result *r, const struct placement *p)
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
	struct fixture e;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_result r;
	struct timespec t0;
	pthread_t writer;
	size_t len;
	int i;

	fixture_init(&e);
	FIXTURE_START(&e);	/* 512 buckets: the table serves both configurations */
	ASSERT_EQ(config_of(FIXTURE_KEY_A, "64", &cfg[0]), 0, "configuration A");
	ASSERT_EQ(config_of(FIXTURE_KEY_B, "512", &cfg[1]), 0, "configuration B");
	/* IPv6: its longer hash message keeps the key and the bucket count
	 * further apart in time, where a torn read would show.
	 */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	len = fixture_build(&s, frame);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(instance_write_config(&e.in, &cfg[i]), 0, "write a configuration");
		r = fixture_run_frame(&e, frame, len);
		fixture_expect_redirect(&r, "the frame under one configuration");
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
		fixture_stop(&e);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seconds_since(&t0) < FLOOD_SECONDS) {
		r = fixture_run_frame(&e, frame, len);
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
	fixture_stop(&e);
}

/* ---- removing a CPU ---- */

struct shrinker {
	struct fixture *e;
	const __u32 *tables[2];		/* on CPUs 0-1, then on CPU 0 alone */
	int stop;
	unsigned long sets;
	int err;
};

/* `set --cpus 0` and back, as set converges, until told to stop: the
 * configuration is the same each time, only the table and the entries
 * change.
 */
static void *shrink_and_grow(void *arg)
{
	struct shrinker *s = arg;
	struct cpumap_opts cm = { .qsize = 64, .remote = REMOTE_NONE };
	struct cpuset cpus[2];
	struct instance_target t = { .cfg = &s->e->o.cfg, .cm = &cm, .from = &cm };

	cpus[0] = s->e->o.cpus;
	cpus[1] = s->e->o.cpus;
	cpus[1].n = 1;
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED) && !s->err) {
		t.cpus = &cpus[s->sets % 2 ? 0 : 1];
		t.table = s->tables[s->sets % 2 ? 0 : 1];
		s->err = instance_converge(&s->e->in, &t);
		s->sets++;
	}
	return NULL;
}

/* A frame may have read a bucket's old owner just before `set` gave the
 * bucket to another CPU; the old owner's cpumap entry must outlive that
 * frame's redirect, also when the set leaves the configuration slot as it
 * is (same key, bucket count and hash). The order is checked by the grace
 * periods converge waits; the frames run meanwhile must never meet a
 * missing entry.
 */
static void removing_a_cpu_waits_for_frames_in_flight(void)
{
	struct cpumap_opts cm = { .qsize = 64, .remote = REMOTE_NONE };
	struct shrinker sh = {};
	struct fixture_counts before, after, d;
	struct bpf_cpumap_val val;
	struct instance_target t;
	struct cpuset one;
	struct pkt_spec s;
	__u8 frame[FIXTURE_FRAME_CAP];
	__u32 *alone, b, cpu1 = 1;
	unsigned int waited;
	unsigned long frames = 0;
	pthread_t writer;
	size_t len;
	struct fixture e;

	fixture_init(&e);
	fixture_opt(&e, "buckets", "64");
	FIXTURE_START(&e);
	alone = calloc(e.o.cfg.nbuckets, sizeof(*alone));	/* every bucket on CPU 0 */
	ASSERT_TRUE(alone != NULL, "a table for CPU 0 alone");
	one = e.o.cpus;
	one.n = 1;
	t = (struct instance_target){ .cpus = &one, .cfg = &e.o.cfg, .cm = &cm, .table = alone,
				      .from = &cm };
	waited = instance_grace_periods;
	ASSERT_EQ(instance_converge(&e.in, &t), 0, "set --cpus 0, configuration unchanged");
	ASSERT_EQ(instance_grace_periods - waited, 1u,
		  "grace periods between the table write and the removal of CPU 1's entry");
	ASSERT_NE(bpf_map_lookup_elem(e.in.maps.cpu_map, &cpu1, &val), 0,
		  "CPU 1's cpumap entry after the set");

	sh.e = &e;
	sh.tables[0] = e.table;
	sh.tables[1] = alone;
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	len = fixture_build(&s, frame);
	ASSERT_EQ(fixture_read_counts(&e, &before), 0, "read the counters");
	if (pthread_create(&writer, NULL, shrink_and_grow, &sh)) {
		ASSERT_TRUE(false, "start the set loop");
		free(alone);
		fixture_stop(&e);
		return;
	}
	while (__atomic_load_n(&sh.sets, __ATOMIC_RELAXED) < 200 && !sh.err) {
		/* Every flow of the run, so that some hash to CPU 1's buckets. */
		for (b = 0; b < 16; b++) {
			s.sport = 1000 + b;
			len = fixture_build(&s, frame);
			fixture_run_frame(&e, frame, len);
			frames++;
		}
	}
	__atomic_store_n(&sh.stop, 1, __ATOMIC_RELAXED);
	pthread_join(writer, NULL);
	ASSERT_EQ(fixture_read_counts(&e, &after), 0, "read the counters");
	d = fixture_counts_since(&before, &after);
	printf("#   %lu sets, %lu frames: %llu redirected, %llu without a cpumap entry\n",
	       sh.sets, frames, (unsigned long long)d.redirected,
	       (unsigned long long)d.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY]);
	ASSERT_EQ(sh.err, 0, "the sets");
	ASSERT_EQ(d.c.errors[CPUSTEER_ERR_NO_CPUMAP_ENTRY], 0ull,
		  "frames that met a removed cpumap entry");
	ASSERT_EQ(d.redirected, (__u64)frames, "frames redirected");
	free(alone);
	fixture_stop(&e);
}

/* ---- the no-touch floor ---- */

/* The target CPU of one redirect, from the counters it moved: the
 * no-touch floor keeps no record. -1 when the frame was not redirected to
 * CPU 0 or 1 alone.
 */
static int redirect_target(const struct fixture_counts *d)
{
	struct fixture_counts want = {};
	int cpu;

	want.c.rx_packets = 1;
	want.redirected = 1;
	for (cpu = 0; cpu < 2; cpu++) {
		memset(want.to, 0, sizeof(want.to));
		want.to[cpu] = 1;
		if (fixture_same_counts(d, &want))
			return cpu;
	}
	return -1;
}

/* Owners of 8 buckets whose 8 rotations all differ (a de Bruijn
 * sequence), so that a run of CPUs says which bucket each frame took.
 */
static const __u32 rotation_table[8] = { 0, 0, 0, 1, 0, 1, 1, 1 };

static void env_write_table(struct fixture *e, const __u32 *owners, __u32 n)
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
	struct fixture e;
	__u8 frame[ETH_HLEN + 4] = { 0 };	/* never read: need not parse */
	struct fixture_result r;
	struct fixture_counts before, after, d;
	cpu_set_t old, one;
	char moved[256];
	int seq[64], per_cpu[2] = {}, bad = 0, recorded = 0, i;
	bool pinned;

	fixture_init(&e);
	fixture_opt(&e, "buckets", "8");
	FIXTURE_START(&e);
	env_write_table(&e, rotation_table, 8);
	/* The round robin runs on a per-CPU counter: stay on one CPU. */
	pinned = !sched_getaffinity(0, sizeof(old), &old) && sched_getcpu() >= 0;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	pinned = pinned && !sched_setaffinity(0, sizeof(one), &one);
	ASSERT_TRUE(pinned, "pin the test to the CPU it runs on");
	for (i = 0; i < 64; i++) {
		if (fixture_read_counts(&e, &before))
			bad++;
		r = fixture_run_frame_how(&e, frame, sizeof(frame),
					  (struct fixture_run_how){ .prog = notouch_fd(&e) });
		if (fixture_read_counts(&e, &after))
			bad++;
		d = fixture_counts_since(&before, &after);
		seq[i] = redirect_target(&d);
		recorded += r.d.outcome != ~0u;
		if ((r.err || r.retval != XDP_REDIRECT || seq[i] < 0) && bad++ < 3)
			printf("#   run %d: err %d, verdict %u, counters moved: %s\n", i, r.err,
			       r.retval, fixture_format_counts(&d, moved, sizeof(moved)));
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
	fixture_stop(&e);
}

static const struct tu_test tests[] = {
	TU_TEST(counters_reconcile_with_frames_sent),
	TU_TEST(bucket_without_cpumap_entry_passes_as_error),
	TU_TEST(bucket_naming_unknown_cpu_passes_as_error),
	TU_TEST(fast_program_agrees_with_classify),
	TU_TEST(config_change_never_tears_a_decision),
	TU_TEST(removing_a_cpu_waits_for_frames_in_flight),
	TU_TEST(notouch_redirects_round_robin_over_buckets),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
