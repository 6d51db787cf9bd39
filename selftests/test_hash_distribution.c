// SPDX-License-Identifier: GPL-2.0
/* Whether the flow hashes spread structured flow sets over buckets and
 * CPUs as a uniform random assignment would, for random keys, and whether
 * these checks catch a hash that does not.
 *
 * Each set holds 65,536 flows that differ in one or two fields, as real
 * traffic does (sequential source ports, a sweep of source addresses, ...).
 * The kernel hashes them with the steering program's own code (flow_hash()
 * of bpf/hash.h, in selftests/bpf/hash_sweep.bpf.c), and user space counts
 * the flows of each of 512 buckets and of each CPU of the tables that
 * `load` builds for 2, 3, 7 and 64 CPUs. docs/hash-distribution.md says
 * which bounds a uniform assignment keeps and why; in short:
 *  - the fullest bucket and each CPU's count stay below the count that a
 *    uniform assignment exceeds with probability at most ALPHA, exact
 *    binomial tails with a union bound over the buckets or the CPUs;
 *  - a chi-square test over the buckets does not reject uniformity at
 *    p < ALPHA, and rejects it at p < 0.001 no more often than chance
 *    would (a binomial bound at ALPHA on how many sweeps may);
 *  - ALPHA is the whole run's false-failure budget, FALSE_FAILURE,
 *    divided among all the checks it makes (Bonferroni).
 * The keys are fresh random ones on every run; a failure prints its key,
 * and CPUSTEER_HASH_KEYS=KEY[,KEY...] (32 hex digits each, as --key; at
 * most 64) runs those keys instead.
 *
 * Not in kernel runs: the hash arithmetic is the same on every kernel; test_steer_hash checks the steering program's there (1 s here, 26 s under emulation)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cpusteer.h"
#include "selftests/hash_sweep.skel.h"
#include "cpuset.h"
#include "indirection.h"
#include "log.h"
#include "multilinear_key.h"
#include "options.h"
#include "test_util.h"
#include "uniform_bounds.h"

#define BUCKETS CPUSTEER_DEFAULT_BUCKETS
#define RANDOM_KEYS 10
#define MAX_KEYS 64
/* The chance that this whole file fails for a hash that is uniform. */
#define FALSE_FAILURE 1e-4
/* The customary level of one chi-square test: how often a sweep may
 * reject at it is bounded, not that none does (docs/hash-distribution.md).
 */
#define CHI_SQUARE_LEVEL 0.001
#define KEY_HEX_LEN 33

static const __u32 cpu_counts[] = { 2, 3, 7, 64 };
#define CPU_COUNTS ARRAY_SIZE(cpu_counts)
#define MOST_CPUS 64	/* the largest of cpu_counts */

static struct hash_sweep *skel;
static __u64 keys[MAX_KEYS][2];
static size_t nkeys;

/* ---- the structured flow sets ---- */

static void ipv4_flow(struct cpusteer_flow_key *k, __u32 src, __u16 sport, __u32 dst, __u16 dport,
		      __u8 proto)
{
	memset(k, 0, sizeof(*k));
	k->saddr[0] = htonl(src);
	k->daddr[0] = htonl(dst);
	k->sport = sport;
	k->dport = dport;
	k->proto = proto;
	k->family = 4;
}

/* A UDP flow from 2001:db8:0:1::/64, the source's interface ID given as
 * a number, to [2001:db8::1]:443.
 */
static void ipv6_flow_from_iid(struct cpusteer_flow_key *k, __u64 iid)
{
	static const __u32 prefix[2] = { 0x20010db8, 0x00000001 };

	memset(k, 0, sizeof(*k));
	k->saddr[0] = htonl(prefix[0]);
	k->saddr[1] = htonl(prefix[1]);
	k->saddr[2] = htonl(iid >> 32);
	k->saddr[3] = htonl((__u32)iid);
	k->daddr[0] = htonl(0x20010db8);
	k->daddr[3] = htonl(1);
	k->sport = 40000;
	k->dport = 443;
	k->proto = IPPROTO_UDP;
	k->family = 6;
}

/* Flow i of each set, i < 65,536. Addresses are numbers (0xc0000201 is
 * 192.0.2.1).
 */
static void sequential_source_ports(__u32 i, struct cpusteer_flow_key *k)
{
	ipv4_flow(k, 0xc0000201, i, 0xc6336402, 443, IPPROTO_UDP);
}

static void ipv4_sources_of_a_16(__u32 i, struct cpusteer_flow_key *k)
{
	ipv4_flow(k, 0x0a010000 | i, 40000, 0xc0000201, 443, IPPROTO_UDP);
}

/* The interface IDs ::0 to ::ffff, as a scan or an address pool makes. */
static void ipv6_sources_low_16_bits(__u32 i, struct cpusteer_flow_key *k)
{
	ipv6_flow_from_iid(k, i);
}

/* Interface IDs that differ in bits 24 to 39, across the boundary of the
 * two 32-bit words they make in the message: both words' key words count.
 */
static void ipv6_sources_middle_16_bits(__u32 i, struct cpusteer_flow_key *k)
{
	ipv6_flow_from_iid(k, (__u64)i << 24);
}

/* 10.1.128.1 to every address of its /16: in symmetric mode the ends are
 * swapped for the lower half of them and kept for the upper half.
 */
static void one_source_to_many_destinations(__u32 i, struct cpusteer_flow_key *k)
{
	ipv4_flow(k, 0x0a018001, 40000, 0x0a010000 | i, 443, IPPROTO_TCP);
}

/* 256 clients of 203.0.113.0/24, 256 connections each from consecutive
 * ephemeral ports, to one server port: two message words vary at once.
 */
static void many_sources_to_one_port(__u32 i, struct cpusteer_flow_key *k)
{
	ipv4_flow(k, 0xcb007100 | i >> 8, 49152 + (i & 0xff), 0xc0000201, 443, IPPROTO_TCP);
}

struct flow_set {
	const char *name;
	void (*flow)(__u32 i, struct cpusteer_flow_key *k);
	bool symmetric;
};

static const struct flow_set sets[] = {
	{ "sequential source ports", sequential_source_ports, false },
	{ "IPv4 sources of a /16", ipv4_sources_of_a_16, false },
	{ "IPv6 sources, low 16 bits", ipv6_sources_low_16_bits, false },
	{ "IPv6 sources, bits 24-39", ipv6_sources_middle_16_bits, false },
	{ "one source to many dests", one_source_to_many_destinations, false },
	{ "many sources to one port", many_sources_to_one_port, false },
	{ "one to many, symmetric", one_source_to_many_destinations, true },
};
#define SETS ARRAY_SIZE(sets)

/* ---- the hashes under test ---- */

/* The message of a flow as the multilinear hash reads it: its wire bytes,
 * two zero bytes and its length, as little-endian 32-bit words
 * (docs/flow-hash.md, sections 3 and 5). Returns how many words.
 */
static int message_words(const struct cpusteer_flow_key *k, __u32 w[CPUSTEER_MULTILINEAR_WORDS])
{
	int addr_words = k->family == 6 ? 4 : 1, n = 0, i;
	__u16 ports[2] = { htons(k->sport), htons(k->dport) };

	for (i = 0; i < addr_words; i++)
		w[n++] = k->saddr[i];
	for (i = 0; i < addr_words; i++)
		w[n++] = k->daddr[i];
	memcpy(&w[n++], ports, sizeof(ports));
	w[n++] = k->proto | (__u32)(k->family == 6 ? 37 : 13) << 24;
	return n;
}

/* The deliberately weak hashes: unkeyed, and linear in the message. */
static __u32 xor_of_words(const struct cpusteer_flow_key *k)
{
	__u32 w[CPUSTEER_MULTILINEAR_WORDS], h = 0;
	int i, n = message_words(k, w);

	for (i = 0; i < n; i++)
		h ^= w[i];
	return h;
}

static __u32 sum_of_words(const struct cpusteer_flow_key *k)
{
	__u32 w[CPUSTEER_MULTILINEAR_WORDS], h = 0;
	int i, n = message_words(k, w);

	for (i = 0; i < n; i++)
		h += w[i];
	return h;
}

struct hasher {
	const char *name;
	__u32 hash_fn;		/* the kernel's family, unless `weak` */
	__u32 (*weak)(const struct cpusteer_flow_key *k);	/* in user space */
	__u64 key_word;		/* nonzero: every multilinear key word */
};

static const struct hasher multilinear = {
	.name = "multilinear", .hash_fn = CPUSTEER_HASH_MULTILINEAR,
};
static const struct hasher siphash13 = {
	.name = "siphash13", .hash_fn = CPUSTEER_HASH_SIPHASH13,
};
static const struct hasher *const families[] = { &multilinear, &siphash13 };

/* The hashes of the first n flows of sweep_flows under one key, into
 * `out`.
 */
static int hash_flows(const struct hasher *h, bool symmetric, const __u64 key[2], __u32 *out,
		      __u32 n)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct cpusteer_config cfg = { .hash_fn = h->hash_fn, .symmetric = symmetric };
	__u8 frame[64] = { 0 };
	__u32 i;

	if (h->weak) {
		for (i = 0; i < n; i++)
			out[i] = h->weak(&skel->bss->sweep_flows[i]);
		return 0;
	}
	memcpy(cfg.key, key, sizeof(cfg.key));
	multilinear_key_draw(&cfg);
	if (h->key_word) {
		for (i = 0; i <= CPUSTEER_MULTILINEAR_WORDS; i++)
			cfg.multilinear_key[i] = h->key_word;
		multilinear_key_fold(&cfg);
	}
	skel->bss->sweep_config = cfg;
	skel->bss->sweep_count = n;
	opts.data_in = frame;
	opts.data_size_in = sizeof(frame);
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.hash_sweep), &opts))
		return -errno;
	if (opts.retval != XDP_PASS)
		return -EPROTO;
	memcpy(out, skel->bss->sweep_hashes, n * sizeof(*out));
	return 0;
}

/* ---- what a uniform assignment gives ---- */

struct bounds {
	double alpha;			/* one check's share of FALSE_FAILURE */
	__u32 bucket;			/* flows in one bucket, at most */
	__u32 rejections;		/* of a family's sweeps, how many may
					 * reject at CHI_SQUARE_LEVEL */
	__u32 table[CPU_COUNTS][BUCKETS];	/* as load builds it */
	__u32 cpu[CPU_COUNTS][MOST_CPUS];	/* flows of each CPU, at most */
};

static struct bounds bounds;

/* Every check of a run: per sweep (key, set, kernel family) the fullest
 * bucket, the chi-square and each CPU count; per family the count of
 * chi-square rejections. Each may fail by chance with probability alpha.
 */
static void bounds_compute(__u32 n)
{
	size_t sweeps = nkeys * SETS, c, i;
	size_t checks = ARRAY_SIZE(families) * (sweeps * (2 + CPU_COUNTS) + 1);
	struct cpuset set = { 0 };
	__u32 owned[MOST_CPUS];

	bounds.alpha = FALSE_FAILURE / checks;
	bounds.bucket = binomial_bound(n, 1.0 / BUCKETS, bounds.alpha / BUCKETS);
	bounds.rejections = binomial_bound(sweeps, CHI_SQUARE_LEVEL, bounds.alpha);
	for (c = 0; c < CPU_COUNTS; c++) {
		set.n = cpu_counts[c];
		for (i = 0; i < set.n; i++) {
			set.cpu[i] = i;
			set.weight[i] = 1;
		}
		for (i = 0; i < BUCKETS; i++)
			bounds.table[c][i] = BUCKET_UNOWNED;
		indirection_rebalance(bounds.table[c], BUCKETS, &set);
		indirection_count(bounds.table[c], BUCKETS, &set, owned);
		for (i = 0; i < set.n; i++)
			bounds.cpu[c][i] = binomial_bound(n, (double)owned[i] / BUCKETS,
							  bounds.alpha / set.n);
	}
}

/* ---- one sweep: the flows of a set under one key ---- */

enum check {
	CHECK_BUCKET = 1,
	CHECK_CHI_SQUARE = 2,
	CHECK_CPU = 4,
};

struct spread {
	__u32 fullest;			/* flows in the fullest bucket */
	double chi_square, p;
	double cpu_share[CPU_COUNTS];	/* the busiest CPU's, of all flows */
	unsigned int failed;		/* enum check bits */
	unsigned int cpus_over;		/* bit c: a CPU of cpu_counts[c] over */
};

static struct spread measure(const __u32 *hash, __u32 n)
{
	__u32 per_bucket[BUCKETS] = { 0 }, per_cpu[MOST_CPUS], i, b, c;
	double expected = (double)n / BUCKETS, busiest;
	struct spread s = { 0 };

	for (i = 0; i < n; i++)
		per_bucket[cpusteer_bucket(hash[i], BUCKETS)]++;
	for (b = 0; b < BUCKETS; b++) {
		if (per_bucket[b] > s.fullest)
			s.fullest = per_bucket[b];
		s.chi_square += (per_bucket[b] - expected) * (per_bucket[b] - expected) / expected;
	}
	s.p = chi_square_p(s.chi_square, BUCKETS - 1);
	if (s.fullest > bounds.bucket)
		s.failed |= CHECK_BUCKET;
	if (s.p < bounds.alpha)
		s.failed |= CHECK_CHI_SQUARE;
	for (c = 0; c < CPU_COUNTS; c++) {
		memset(per_cpu, 0, sizeof(per_cpu));
		for (b = 0; b < BUCKETS; b++)
			per_cpu[bounds.table[c][b]] += per_bucket[b];
		busiest = 0;
		for (i = 0; i < cpu_counts[c]; i++) {
			if (per_cpu[i] > bounds.cpu[c][i])
				s.cpus_over |= 1u << c;
			if (per_cpu[i] > busiest)
				busiest = per_cpu[i];
		}
		s.cpu_share[c] = busiest / n;
	}
	if (s.cpus_over)
		s.failed |= CHECK_CPU;
	return s;
}

/* ---- a hash over every set and key ---- */

struct verdict {
	struct spread worst[SETS];	/* per set, each figure the worst of the keys */
	bool ran[SETS];
	__u32 sweeps, rejections;	/* rejections at CHI_SQUARE_LEVEL */
	unsigned int failed;		/* enum check bits, of any sweep */
	int err;
};

static void note_worst(struct spread *w, const struct spread *s, bool first)
{
	size_t c;

	if (first) {
		*w = *s;
		return;
	}
	if (s->fullest > w->fullest)
		w->fullest = s->fullest;
	if (s->chi_square > w->chi_square) {
		w->chi_square = s->chi_square;
		w->p = s->p;
	}
	for (c = 0; c < CPU_COUNTS; c++)
		if (s->cpu_share[c] > w->cpu_share[c])
			w->cpu_share[c] = s->cpu_share[c];
	w->failed |= s->failed;
	w->cpus_over |= s->cpus_over;
}

static void print_failure(const struct hasher *h, const struct flow_set *set, const __u64 key[2],
			  const struct spread *s)
{
	char hex[KEY_HEX_LEN] = "";
	size_t c;

	if (!h->weak)
		key_format(key, hex, sizeof(hex));
	printf("#   %s, %s%s%s: fullest bucket %u (bound %u), chi-square %.1f (p %.2g, bound %.2g)",
	       h->name, set->name, *hex ? ", key " : "", hex, s->fullest, bounds.bucket,
	       s->chi_square, s->p, bounds.alpha);
	for (c = 0; c < CPU_COUNTS; c++)
		if (s->cpus_over & 1u << c)
			printf(", a CPU of %u over its bound (busiest %.2f%%)", cpu_counts[c],
			       100 * s->cpu_share[c]);
	printf("\n");
}

/* Sweeps every set under the first `use_keys` keys (the weak hashes take
 * none: one sweep a set, and no set of their own needs symmetric mode).
 */
static struct verdict judge(const struct hasher *h, size_t use_keys, bool quiet)
{
	static __u32 hash[ARRAY_SIZE(skel->bss->sweep_hashes)];
	__u32 n = ARRAY_SIZE(hash), i;
	struct verdict v = { 0 };
	struct spread s;
	size_t set, k;

	for (set = 0; set < SETS && !v.err; set++) {
		if (h->weak && sets[set].symmetric)
			continue;
		for (i = 0; i < n; i++)
			sets[set].flow(i, &skel->bss->sweep_flows[i]);
		v.ran[set] = true;
		for (k = 0; k < use_keys && !v.err; k++) {
			v.err = hash_flows(h, sets[set].symmetric, keys[k], hash, n);
			if (v.err)
				break;
			s = measure(hash, n);
			v.sweeps++;
			v.rejections += s.p < CHI_SQUARE_LEVEL;
			v.failed |= s.failed;
			note_worst(&v.worst[set], &s, k == 0);
			if (s.failed && !quiet)
				print_failure(h, &sets[set], keys[k], &s);
		}
	}
	return v;
}

static void print_bounds(void)
{
	size_t c, i;

	printf("# bounds: fullest bucket %u (mean %u); chi-square p >= %.2g, and at most %u sweeps of a family at p < %g;\n",
	       bounds.bucket, (__u32)ARRAY_SIZE(skel->bss->sweep_hashes) / BUCKETS, bounds.alpha,
	       bounds.rejections, CHI_SQUARE_LEVEL);
	printf("#   busiest CPU at most");
	for (c = 0; c < CPU_COUNTS; c++) {
		__u32 most = 0;

		for (i = 0; i < cpu_counts[c]; i++)
			if (bounds.cpu[c][i] > most)
				most = bounds.cpu[c][i];
		printf(" %.2f%% of %u,", 100.0 * most / ARRAY_SIZE(skel->bss->sweep_hashes),
		       cpu_counts[c]);
	}
	printf(" each CPU against its own share\n");
}

/* The figures of a verdict, one line a set, for the record. */
static void print_verdict(const struct hasher *h, const struct verdict *v, size_t use_keys)
{
	size_t set, c;

	printf("# %s, %zu key%s, the worst of each set: fullest bucket, chi-square (p), busiest CPU of",
	       h->name, use_keys, use_keys == 1 ? "" : "s");
	for (c = 0; c < CPU_COUNTS; c++)
		printf(" %u", cpu_counts[c]);
	printf("\n");
	for (set = 0; set < SETS; set++) {
		const struct spread *w = &v->worst[set];

		if (!v->ran[set])
			continue;
		printf("#   %-26s %6u %10.1f (%.2g)", sets[set].name, w->fullest, w->chi_square, w->p);
		for (c = 0; c < CPU_COUNTS; c++)
			printf(" %6.2f%%", 100 * w->cpu_share[c]);
		printf("%s\n", w->failed ? "  FAILS" : "");
	}
	printf("#   %u of %u sweeps reject uniformity at p < %g\n", v->rejections, v->sweeps,
	       CHI_SQUARE_LEVEL);
}

/* ---- the tests ---- */

static bool usable(const struct verdict *v)
{
	if (v->err)
		printf("#   the hash sweep program failed: %s\n", strerror(-v->err));
	return !v->err;
}

static void spreads_as_uniform_would(const struct hasher *h)
{
	struct verdict v = judge(h, nkeys, false);

	if (!usable(&v)) {
		tu_failures++;
		return;
	}
	print_verdict(h, &v, nkeys);
	ASSERT_EQ(v.failed, 0, "checks failed (1 fullest bucket, 2 chi-square, 4 a CPU)");
	ASSERT_TRUE(v.rejections <= bounds.rejections, "chi-square rejections at p < 0.001 within chance");
}

static void fails_the_checks(const struct hasher *h)
{
	struct verdict v = judge(h, 1, true);

	if (!usable(&v)) {
		tu_failures++;
		return;
	}
	print_verdict(h, &v, 1);
	ASSERT_TRUE(v.failed & CHECK_BUCKET, "the fullest bucket check catches it");
	ASSERT_TRUE(v.failed & CHECK_CHI_SQUARE, "the chi-square check catches it");
	ASSERT_TRUE(v.failed & CHECK_CPU, "the CPU share check catches it");
}

static void multilinear_spreads_sets_as_uniform_would(void)
{
	spreads_as_uniform_would(&multilinear);
}

static void siphash13_spreads_sets_as_uniform_would(void)
{
	spreads_as_uniform_would(&siphash13);
}

static void xor_of_message_words_fails_the_checks(void)
{
	fails_the_checks(&(struct hasher){ .name = "XOR of the message words", .weak = xor_of_words });
}

static void sum_of_message_words_fails_the_checks(void)
{
	fails_the_checks(&(struct hasher){ .name = "sum of the message words", .weak = sum_of_words });
}

/* The kernel's multilinear code with a key that is no key. */
static void multilinear_with_key_words_of_one_fails_the_checks(void)
{
	fails_the_checks(&(struct hasher){ .name = "multilinear, every key word 1",
					   .hash_fn = CPUSTEER_HASH_MULTILINEAR, .key_word = 1 });
}

/* The sweep program reads flows as the steering program parses them:
 * the worked examples of docs/flow-hash.md, section 7 (key
 * 000102030405060708090a0b0c0d0e0f), come out of it.
 */
static void sweep_hashes_the_worked_examples(void)
{
	static const __u64 test_key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	static const struct example {
		const char *flow;
		bool symmetric;
		__u32 hash[ARRAY_SIZE(families)];
	} examples[] = {
		{ "UDP 192.0.2.1:1234 > 198.51.100.2:80", false, { 1968996220u, 1950554112u } },
		{ "UDP [2001:db8::1]:5353 > [2001:db8::2]:53", false, { 2650151723u, 1237677433u } },
		{ "UDP 198.51.100.2:80 > 192.0.2.1:1234, symmetric", true, { 1968996220u, 1950554112u } },
	};
	struct cpusteer_flow_key *f = skel->bss->sweep_flows;
	__u32 got[ARRAY_SIZE(examples)];
	char what[128];
	size_t i, fam;

	ipv4_flow(&f[0], 0xc0000201, 1234, 0xc6336402, 80, IPPROTO_UDP);
	memset(&f[1], 0, sizeof(f[1]));
	inet_pton(AF_INET6, "2001:db8::1", f[1].saddr);
	inet_pton(AF_INET6, "2001:db8::2", f[1].daddr);
	f[1].sport = 5353;
	f[1].dport = 53;
	f[1].proto = IPPROTO_UDP;
	f[1].family = 6;
	ipv4_flow(&f[2], 0xc6336402, 80, 0xc0000201, 1234, IPPROTO_UDP);
	for (fam = 0; fam < ARRAY_SIZE(families); fam++) {
		for (i = 0; i < ARRAY_SIZE(examples); i++) {
			snprintf(what, sizeof(what), "%s of %s", families[fam]->name, examples[i].flow);
			/* The first i + 1 flows, in the example's mode. */
			if (hash_flows(families[fam], examples[i].symmetric, test_key, got, i + 1)) {
				printf("#   the hash sweep program failed\n");
				tu_failures++;
				return;
			}
			ASSERT_EQ(got[i], examples[i].hash[fam], what);
		}
	}
}

/* The bounds' arithmetic against values worked out apart, in 40-digit
 * arithmetic: a slip that loosened the bounds would let a skewed hash
 * pass while the weak hashes, far beyond any bound, still failed.
 */
static void uniform_bounds_match_values_worked_apart(void)
{
	ASSERT_EQ(binomial_bound(65536, 1.0 / 512, 1e-9), 201, "one bucket of 512, at 1e-9");
	ASSERT_EQ(binomial_bound(65536, 1.0 / 64, 1e-9), 1220, "one CPU of 64, at 1e-9");
	/* P(X > 33535) = 1.0089e-9, P(X > 33536) = 0.9615e-9 */
	ASSERT_EQ(binomial_bound(65536, 0.5, 1e-9), 33536, "one CPU of 2, at 1e-9");
	ASSERT_EQ(binomial_bound(70, 0.001, 1e-7), 4, "rejections of 70 tests at p < 0.001, at 1e-7");
	ASSERT_NEAR(binomial_tail_above(65536, 1.0 / 512, 160) / 2.7228159e-3, 1, 1e-6,
		    "P(a bucket of 512 gets more than 160), relative");
	ASSERT_NEAR(chi_square_p(600, 511) / 3.9352480e-3, 1, 0.002, "chi-square 600, relative");
	ASSERT_NEAR(chi_square_p(650, 511) / 2.8257152e-5, 1, 0.01, "chi-square 650, relative");
	ASSERT_NEAR(chi_square_p(700, 511) / 4.9370672e-8, 1, 0.03, "chi-square 700, relative");
}

static const struct tu_test tests[] = {
	TU_TEST(uniform_bounds_match_values_worked_apart),
	TU_TEST(sweep_hashes_the_worked_examples),
	TU_TEST(multilinear_spreads_sets_as_uniform_would),
	TU_TEST(siphash13_spreads_sets_as_uniform_would),
	TU_TEST(xor_of_message_words_fails_the_checks),
	TU_TEST(sum_of_message_words_fails_the_checks),
	TU_TEST(multilinear_with_key_words_of_one_fails_the_checks),
};

/* The keys: CPUSTEER_HASH_KEYS, or RANDOM_KEYS fresh ones. */
static int keys_choose(void)
{
	const char *given = getenv("CPUSTEER_HASH_KEYS");
	struct steer_opts o = { 0 };
	char *list, *key, *rest;

	if (!given || !*given) {
		for (nkeys = 0; nkeys < RANDOM_KEYS; nkeys++)
			if (getrandom(keys[nkeys], sizeof(keys[nkeys]), 0) != sizeof(keys[nkeys]))
				return -errno;
		return 0;
	}
	list = strdup(given);
	if (!list)
		return -ENOMEM;
	for (key = strtok_r(list, ",", &rest); key; key = strtok_r(NULL, ",", &rest)) {
		if (nkeys == MAX_KEYS || steer_opts_set(&o, "key", key)) {
			free(list);
			return -EINVAL;
		}
		memcpy(keys[nkeys++], o.cfg.key, sizeof(o.cfg.key));
	}
	free(list);
	return nkeys ? 0 : -EINVAL;
}

int main(void)
{
	int err;

	log_setup_libs();
	tu_plan(ARRAY_SIZE(tests));
	err = keys_choose();
	if (err) {
		tu_abort(tests, ARRAY_SIZE(tests),
			 "cannot choose the keys (CPUSTEER_HASH_KEYS: 32 hex digits each, commas between)");
		return 1;
	}
	skel = hash_sweep__open_and_load();
	if (!skel) {
		tu_abort(tests, ARRAY_SIZE(tests), "cannot load the hash sweep program");
		return 1;
	}
	bounds_compute(ARRAY_SIZE(skel->bss->sweep_hashes));
	print_bounds();
	tu_run_range(tests, 0, ARRAY_SIZE(tests));
	hash_sweep__destroy(skel);
	return tu_total_failed ? 1 : 0;
}
