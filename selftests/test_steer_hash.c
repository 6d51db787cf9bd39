// SPDX-License-Identifier: GPL-2.0
/* Where the hash and the bucket table put a flow: symmetric mode, the
 * key, the worked answers of the flow hash format (docs/flow-hash.md),
 * the bucket of a hash and the CPU of a bucket, weights, and the spread
 * of flows over the CPUs.
 *
 * A file of its own because these test the hash and the table whatever
 * frame carries the flow, and docs/flow-hash.md points at it for its
 * worked examples. The instance and the frame runs are steer_fixture.h.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include "indirection.h"
#include "steer_fixture.h"

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
static struct apart directions_apart(struct fixture *e, int fam)
{
	struct apart a = { .ok = true };
	struct pkt_spec s;
	struct fixture_result fwd, rev;
	int i;

	rng_seed(11 + fam);
	for (i = 0; i < 50; i++) {
		fixture_random_flow(&s, fam);
		if (i == 0)	/* same host both ends: ports decide */
			memcpy(s.daddr, s.saddr, 16);
		fwd = fixture_run_spec(e, &s);
		swap_ends(&s);
		rev = fixture_run_spec(e, &s);
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
	struct fixture e;
	struct apart a;
	int fam;

	fixture_init(&e);
	fixture_opt(&e, "symmetric", NULL);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		a = directions_apart(&e, fam);
		ASSERT_TRUE(a.ok, fam == 4 ? "IPv4: every frame redirected" : "IPv6: every frame redirected");
		ASSERT_EQ(a.cpu, 0, fam == 4 ? "IPv4 pairs on two CPUs" : "IPv6 pairs on two CPUs");
		ASSERT_EQ(a.hash, 0, fam == 4 ? "IPv4 pairs with two hashes" : "IPv6 pairs with two hashes");
	}
	fixture_stop(&e);
}

static void asymmetric_mode_tells_directions_apart(void)
{
	struct fixture e;
	struct apart a;
	int fam;

	fixture_init(&e);
	FIXTURE_START(&e);
	for (fam = 4; fam <= 6; fam += 2) {
		a = directions_apart(&e, fam);
		ASSERT_TRUE(a.ok, fam == 4 ? "IPv4: every frame redirected" : "IPv6: every frame redirected");
		ASSERT_TRUE(a.cpu >= 1, fam == 4 ? "IPv4: of 50 pairs, one at least on two CPUs"
						 : "IPv6: of 50 pairs, one at least on two CPUs");
		ASSERT_TRUE(a.hash >= 49, fam == 4 ? "IPv4: directions hash apart"
						   : "IPv6: directions hash apart");
	}
	fixture_stop(&e);
}

/* ---- the key ---- */

#define NFLOWS 1000

/* Places NFLOWS random flows (seeded, so the same flows every call). */
static bool place_flows(struct fixture *e, __u64 seed, __u32 *cpu, __u32 *hash)
{
	struct pkt_spec s;
	struct fixture_result r;
	int i;

	rng_seed(seed);
	for (i = 0; i < NFLOWS; i++) {
		fixture_random_flow(&s, 0);
		r = fixture_run_spec(e, &s);
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
	struct fixture e;
	bool ok;

	fixture_init(&e);
	fixture_opt(&e, "key", key);
	if (fixture_start(&e)) {
		fixture_stop(&e);
		return false;
	}
	ok = place_flows(&e, seed, cpu, hash);
	fixture_stop(&e);
	return ok;
}

static void key_change_moves_about_half_of_flows(void)
{
	static __u32 cpu_a[NFLOWS], hash_a[NFLOWS], cpu_b[NFLOWS], hash_b[NFLOWS];
	int i, moved = 0, rehashed = 0;

	ASSERT_TRUE(place_with_key(FIXTURE_KEY_A, 1, cpu_a, hash_a), "placement with key A");
	ASSERT_TRUE(place_with_key(FIXTURE_KEY_B, 1, cpu_b, hash_b), "placement with key B");
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

	ASSERT_TRUE(place_with_key(FIXTURE_KEY_B, 2, cpu_a, hash_a), "first placement");
	ASSERT_TRUE(place_with_key(FIXTURE_KEY_B, 2, cpu_b, hash_b), "second placement");
	for (i = 0; i < NFLOWS; i++)
		differ += cpu_a[i] != cpu_b[i] || hash_a[i] != hash_b[i];
	ASSERT_EQ(differ, 0, "flows placed differently by two loads with one key");
}

/* The decision must be the table's: bucket by multiply-shift of the hash,
 * CPU from that bucket's entry.
 */
static void flow_cpu_is_table_entry_of_its_bucket(void)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	__u32 nb, bad_bucket = 0, bad_cpu = 0, i;

	fixture_init(&e);
	fixture_opt(&e, "buckets", "61");
	FIXTURE_START(&e);
	nb = e.o.cfg.nbuckets;
	rng_seed(3);
	for (i = 0; i < 500; i++) {
		fixture_random_flow(&s, 0);
		r = fixture_run_spec(&e, &s);
		fixture_expect_redirect(&r, "random flow");
		bad_bucket += r.d.bucket != (__u32)(((__u64)r.d.hash * nb) >> 32);
		bad_cpu += r.d.bucket >= nb || r.d.cpu != e.table[r.d.bucket];
	}
	ASSERT_EQ(bad_bucket, 0, "flows whose bucket is not hash * nbuckets >> 32");
	ASSERT_EQ(bad_cpu, 0, "flows whose cpu is not their bucket's table entry");
	fixture_stop(&e);
}

/* ---- known answers ---- */

/* Flow hashes worked out from the flow hash specification alone, by an
 * implementation outside this project (SipHash-1-3 checked against its
 * published vectors), never read off the program. The message is the flow's wire bytes: source
 * address, destination address, source port, destination port, protocol;
 * ports are zero for fragments and protocols without ports, and symmetric
 * mode puts the lower end (address as a big-endian number, then port)
 * first. SipHash-1-3 takes k0 and k1 as the little-endian bytes 0-7 and
 * 8-15 of --key and is folded to (u32)(h ^ h >> 32); multilinear is the
 * top 32 bits of K0 + sum of K[i+1] * w[i] modulo 2^64, where w are the
 * message's little-endian 32-bit words after two zero bytes and a length
 * byte, and K[i] is SipHash-1-3 under --key of the 8-byte little-endian i.
 * The bucket is hash * nbuckets >> 32.
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
	  FIXTURE_KEY_A, "siphash13", false, 61, 0x731ab1e7, 27 },
	/* 0a010203 0a030201 0000 0000 01 */
	{ "10.1.2.3", "10.3.2.1", 0, 0, IPPROTO_ICMP, false,
	  FIXTURE_KEY_A, "siphash13", false, 512, 0xe1ef97b7, 451 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 14e9 0035 11
	 */
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, false,
	  FIXTURE_KEY_B, "siphash13", false, 512, 0x4102b248, 130 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 0000 0000 11: the first fragment, ports not hashed
	 */
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, true,
	  FIXTURE_KEY_B, "siphash13", false, 100, 0x89a37e87, 53 },
	/* 09000002 0a000001 0050 1388 06: the ends swapped, 9.0.0.2 being
	 * the lower address (as little-endian words it would be the higher)
	 */
	{ "10.0.0.1", "9.0.0.2", 5000, 80, IPPROTO_TCP, false,
	  FIXTURE_KEY_A, "siphash13", true, 512, 0xbe392b94, 380 },
	/* 0a000001 09000002 1388 0050 06: the same, not symmetric */
	{ "10.0.0.1", "9.0.0.2", 5000, 80, IPPROTO_TCP, false,
	  FIXTURE_KEY_A, "siphash13", false, 512, 0x739f376d, 231 },
	/* 20010db8 00000000 00000000 00000005 (twice) 0002 0100 11: one
	 * address, so port 2 is the lower end (as wire words, 256 would be)
	 */
	{ "2001:db8::5", "2001:db8::5", 256, 2, IPPROTO_UDP, false,
	  KEY_C, "siphash13", true, 512, 0x5ab25d22, 181 },
	/* c0000201 c6336402 04d2 0050 11 */
	{ "192.0.2.1", "198.51.100.2", 1234, 80, IPPROTO_UDP, false,
	  KEY_C, "multilinear", false, 512, 0x0a274714, 20 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 01bb c350 06
	 */
	{ "2001:db8::1", "2001:db8::2", 443, 50000, IPPROTO_TCP, false,
	  KEY_C, "multilinear", false, 61, 0xd587f303, 50 },
	/* 0a010203 0a030201 0000 0000 01 */
	{ "10.1.2.3", "10.3.2.1", 0, 0, IPPROTO_ICMP, false,
	  KEY_C, "multilinear", false, 512, 0xccc92a00, 409 },
	/* 20010db8 00000000 00000000 00000001 20010db8 00000000 00000000
	 * 00000002 0000 0000 11: the first fragment
	 */
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, true,
	  KEY_C, "multilinear", false, 100, 0x6de0841e, 42 },
	/* 09000002 0a000001 0050 1388 06: symmetric, the ends swapped */
	{ "10.0.0.1", "9.0.0.2", 5000, 80, IPPROTO_TCP, false,
	  KEY_C, "multilinear", true, 1000, 0x9fb46c60, 623 },
	/* 20010db8 00000000 00000000 00000005 (twice) 0002 0100 11: symmetric */
	{ "2001:db8::5", "2001:db8::5", 256, 2, IPPROTO_UDP, false,
	  FIXTURE_KEY_A, "multilinear", true, 512, 0xf27b6c21, 484 },
	/* The rest: the worked examples of docs/flow-hash.md, messages there. */
	{ "10.1.2.3", "10.3.2.1", 40000, 443, IPPROTO_TCP, false,
	  KEY_SIPREF, "siphash13", false, 512, 0xf4eab879, 489 },
	{ "10.9.9.9", "10.1.1.1", 0, 0, IPPROTO_ICMP, false,
	  KEY_SIPREF, "siphash13", false, 512, 0xd93e5541, 434 },
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, false,
	  KEY_SIPREF, "siphash13", false, 512, 0x49c57579, 147 },
	{ "198.51.100.2", "192.0.2.1", 80, 1234, IPPROTO_UDP, false,
	  KEY_SIPREF, "siphash13", true, 512, 0x74431800, 232 },
	{ "198.51.100.2", "192.0.2.1", 80, 1234, IPPROTO_UDP, false,
	  KEY_SIPREF, "siphash13", false, 512, 0x65cbd99f, 203 },
	{ "192.0.2.1", "198.51.100.2", 1234, 80, IPPROTO_UDP, false,
	  KEY_SIPREF, "multilinear", false, 512, 0x755c7f7c, 234 },
	{ "10.1.2.3", "10.3.2.1", 40000, 443, IPPROTO_TCP, false,
	  KEY_SIPREF, "multilinear", false, 512, 0x7cfaee30, 249 },
	{ "10.9.9.9", "10.1.1.1", 0, 0, IPPROTO_ICMP, false,
	  KEY_SIPREF, "multilinear", false, 512, 0x61f8f66b, 195 },
	{ "2001:db8::1", "2001:db8::2", 5353, 53, IPPROTO_UDP, false,
	  KEY_SIPREF, "multilinear", false, 512, 0x9df61b2b, 315 },
	{ "198.51.100.2", "192.0.2.1", 80, 1234, IPPROTO_UDP, false,
	  KEY_SIPREF, "multilinear", true, 512, 0x755c7f7c, 234 },
	{ "198.51.100.2", "192.0.2.1", 80, 1234, IPPROTO_UDP, false,
	  KEY_SIPREF, "multilinear", false, 512, 0xebc10641, 471 },
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
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	char what[128], buckets[16];

	snprintf(what, sizeof(what), "%s %s:%u > %s:%u proto %u%s%s, %u buckets", ka->hash_fn,
		 ka->src, ka->sport, ka->dst, ka->dport, ka->proto,
		 ka->first_fragment ? ", first fragment" : "", ka->symmetric ? ", symmetric" : "",
		 ka->nbuckets);
	snprintf(buckets, sizeof(buckets), "%u", ka->nbuckets);
	fixture_init(&e);
	fixture_opt(&e, "key", ka->key);
	fixture_opt(&e, "hash", ka->hash_fn);
	fixture_opt(&e, "buckets", buckets);
	if (ka->symmetric)
		fixture_opt(&e, "symmetric", NULL);
	FIXTURE_START(&e);
	known_answer_spec(ka, &s);
	r = fixture_run_spec(&e, &s);
	fixture_expect_redirect(&r, what);
	if (r.d.hash != ka->hash || r.d.bucket != ka->bucket) {
		printf("#   %s: hash %#010x bucket %u, expected %#010x bucket %u\n", what,
		       r.d.hash, r.d.bucket, ka->hash, ka->bucket);
		tu_failures++;
	}
	fixture_stop(&e);
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
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	__u32 owned[2], *table, on0 = 0, i;

	fixture_init(&e);
	fixture_opt(&e, "weights", "3,1");
	FIXTURE_START(&e);
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
		fixture_random_flow(&s, 0);
		r = fixture_run_spec(&e, &s);
		on0 += r.retval == XDP_REDIRECT && r.d.cpu == 0;
	}
	printf("#   CPU 0 got %u of 4000 flows\n", on0);
	ASSERT_TRUE(on0 >= 2800 && on0 <= 3200, "CPU 0's share of 4000 flows in 70%..80%");
	fixture_stop(&e);
}

static void spread_ports_between_two_hosts(const char *hash_fn)
{
	struct fixture e;
	struct pkt_spec s;
	struct fixture_result r;
	__u32 per_cpu[2] = {}, other = 0, i;

	fixture_init(&e);
	fixture_opt(&e, "hash", hash_fn);
	FIXTURE_START(&e);
	for (i = 0; i < 1000; i++) {
		pkt_spec_init(&s, 4, IPPROTO_TCP);
		s.sport = 32768 + i * 7;
		s.dport = 443;
		r = fixture_run_spec(&e, &s);
		if (r.retval == XDP_REDIRECT && r.d.cpu < 2)
			per_cpu[r.d.cpu]++;
		else
			other++;
	}
	printf("#   %s: CPU 0 %u, CPU 1 %u of 1000 flows\n", hash_fn, per_cpu[0], per_cpu[1]);
	ASSERT_EQ(other, 0, "flows not redirected to CPU 0 or 1");
	ASSERT_TRUE(per_cpu[0] >= 450, "CPU 0 gets at least 45%");
	ASSERT_TRUE(per_cpu[1] >= 450, "CPU 1 gets at least 45%");
	fixture_stop(&e);
}

static void ports_spread_flows_of_two_hosts_siphash13(void)
{
	spread_ports_between_two_hosts("siphash13");
}

static void ports_spread_flows_of_two_hosts_multilinear(void)
{
	spread_ports_between_two_hosts("multilinear");
}

static const struct tu_test tests[] = {
	TU_TEST(symmetric_mode_maps_both_directions_alike),
	TU_TEST(asymmetric_mode_tells_directions_apart),
	TU_TEST(key_change_moves_about_half_of_flows),
	TU_TEST(same_key_gives_identical_placement),
	TU_TEST(flow_cpu_is_table_entry_of_its_bucket),
	TU_TEST(flow_hash_known_answers),
	TU_TEST(weights_3_1_give_cpu0_three_quarters),
	TU_TEST(ports_spread_flows_of_two_hosts_siphash13),
	TU_TEST(ports_spread_flows_of_two_hosts_multilinear),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}
