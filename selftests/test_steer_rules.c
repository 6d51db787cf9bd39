// SPDX-License-Identifier: GPL-2.0
/* Prefix rules in the kernel program (bpf/rules.h): a flow whose source
 * or destination address is in a rule's prefix goes to the rule's CPU,
 * or to the one of its CPUs its hash picks, ahead of the bucket table;
 * the longest prefix wins, and a destination rule wins a tie. The
 * configuration says which kinds of rule are looked up and which copy of
 * the tries is in force, and the program reads nothing else.
 *
 * Every check reads the kernel program's decision record or counters;
 * the rules reach the maps through the loader's own code (rule_maps.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include "rule_maps.h"
#include "steer_fixture.h"

/* The rules, one text each, into copy `copy`, and the configuration
 * pointed at them, looking up `kinds` (all the rules', when 0).
 */
static void put_rules(struct fixture *e, int copy, __u16 kinds, const char *const *texts)
{
	struct prefix_rules rs = { 0 };
	struct prefix_rule r;
	char why[256];

	for (; *texts; texts++) {
		ASSERT_EQ(rule_parse(*texts, true, &r, why, sizeof(why)), 0, *texts);
		ASSERT_EQ(rules_append(&rs, &r), 0, "rule kept");
	}
	ASSERT_EQ(rule_maps_fill(&e->in, copy, &rs), 0, "rules written");
	e->o.cfg.rules = (kinds ? kinds : rules_kinds(&rs)) | (copy ? CPUSTEER_RULES_COPY_1 : 0);
	ASSERT_EQ(instance_write_config(&e->in, &e->o.cfg), 0, "configuration written");
	rules_free(&rs);
}

static struct fixture_result run_flow(struct fixture *e, int family, const char *src,
				      const char *dst, __u16 sport)
{
	struct pkt_spec s;

	pkt_spec_init(&s, family, IPPROTO_UDP);
	inet_pton(family == 4 ? AF_INET : AF_INET6, src, s.saddr);
	inet_pton(family == 4 ? AF_INET : AF_INET6, dst, s.daddr);
	s.sport = sport;
	return fixture_run_spec(e, &s);
}

static void expect_rule(const struct fixture_result *r, __u32 cpu, __u32 direction,
			__u32 prefixlen, const char *what)
{
	char buf[160];

	fixture_expect_redirect(r, what);
	snprintf(buf, sizeof(buf), "%s: CPU", what);
	ASSERT_EQ(r->d.cpu, cpu, buf);
	snprintf(buf, sizeof(buf), "%s: by a %s rule", what, direction == CPUSTEER_RULE_SRC ? "src"
							 : "dst");
	ASSERT_EQ(r->d.rule, direction, buf);
	snprintf(buf, sizeof(buf), "%s: the rule's prefix length", what);
	ASSERT_EQ(r->d.rule_prefixlen, prefixlen, buf);
	snprintf(buf, sizeof(buf), "%s: no bucket", what);
	ASSERT_EQ(r->d.bucket, CPUSTEER_NO_BUCKET, buf);
}

/* A flow no rule matches is steered as with no rules at all. */
static void expect_bucket(const struct fixture_result *r, const struct fixture_result *plain,
			  const char *what)
{
	char buf[160];

	fixture_expect_redirect(r, what);
	snprintf(buf, sizeof(buf), "%s: no rule", what);
	ASSERT_EQ(r->d.rule, CPUSTEER_RULE_NONE, buf);
	fixture_expect_same_place(plain, r, what);
}

/* The CPU that no bucket of a flow would have chosen, so that a rule's
 * choice is told apart from the table's.
 */
static __u32 other_cpu(const struct fixture_result *r)
{
	return r->d.cpu ? 0 : 1;
}

static void rule_sends_matching_flows_to_its_cpu(void)
{
	struct fixture_result plain4, plain6, miss4, r;
	struct fixture e;
	char rule4[64], rule6[64];

	fixture_init(&e);
	FIXTURE_START(&e);
	plain4 = run_flow(&e, 4, "10.0.0.1", "192.0.2.7", 1000);
	plain6 = run_flow(&e, 6, "2001:db8:1::1", "2001:db8:2::7", 1000);
	miss4 = run_flow(&e, 4, "10.0.0.1", "198.51.100.7", 1000);
	snprintf(rule4, sizeof(rule4), "dst 192.0.2.0/24 %u", other_cpu(&plain4));
	snprintf(rule6, sizeof(rule6), "src 2001:db8:1::/48 %u", other_cpu(&plain6));
	put_rules(&e, 0, 0, (const char *const[]){ rule4, rule6, NULL });

	r = run_flow(&e, 4, "10.0.0.1", "192.0.2.7", 1000);
	expect_rule(&r, other_cpu(&plain4), CPUSTEER_RULE_DST, 24, "IPv4 to the dst prefix");
	r = run_flow(&e, 6, "2001:db8:1::1", "2001:db8:2::7", 1000);
	expect_rule(&r, other_cpu(&plain6), CPUSTEER_RULE_SRC, 48, "IPv6 from the src prefix");
	r = run_flow(&e, 4, "10.0.0.1", "198.51.100.7", 1000);
	expect_bucket(&r, &miss4, "IPv4 outside every prefix");
	/* The direction is part of the key: from the dst prefix is no match. */
	r = run_flow(&e, 4, "192.0.2.7", "198.51.100.7", 1000);
	ASSERT_EQ(r.d.rule, CPUSTEER_RULE_NONE, "a dst rule does not match the source address");
	fixture_stop(&e);
}

static void longest_prefix_wins_and_a_tie_goes_to_dst(void)
{
	struct fixture_result r;
	struct fixture e;

	fixture_init(&e);
	FIXTURE_START(&e);
	put_rules(&e, 0, 0, (const char *const[]){
		"src 10.0.0.0/8 0", "dst 10.0.0.0/8 1", "src 10.1.2.3/32 0",
		"dst 10.9.0.0/16 1", "dst 10.9.9.0/24 0", NULL });
	r = run_flow(&e, 4, "10.5.0.1", "10.6.0.1", 1);
	expect_rule(&r, 1, CPUSTEER_RULE_DST, 8, "src /8 and dst /8: the dst rule");
	r = run_flow(&e, 4, "10.1.2.3", "10.6.0.1", 1);
	expect_rule(&r, 0, CPUSTEER_RULE_SRC, 32, "src /32 beats dst /8");
	r = run_flow(&e, 4, "192.0.2.1", "10.9.1.1", 1);
	expect_rule(&r, 1, CPUSTEER_RULE_DST, 16, "in the /16 only");
	r = run_flow(&e, 4, "192.0.2.1", "10.9.9.1", 1);
	expect_rule(&r, 0, CPUSTEER_RULE_DST, 24, "the /24 within the /16");
	fixture_stop(&e);
}

/* A rule with a set of CPUs spreads its flows as buckets do: the hash's
 * place among the set's CPUs (cpusteer_bucket).
 */
static void rule_cpu_set_is_picked_by_hash(void)
{
	struct fixture_result r;
	struct fixture e;
	__u32 seen[2] = { 0 }, i, want;
	char what[64];

	fixture_init(&e);
	FIXTURE_START(&e);
	put_rules(&e, 0, 0, (const char *const[]){ "dst 2001:db8:9::/64 0-1", NULL });
	for (i = 0; i < 64; i++) {
		snprintf(what, sizeof(what), "flow %u of the set's prefix", i);
		r = run_flow(&e, 6, "2001:db8:1::1", "2001:db8:9::5", 2000 + i);
		want = cpusteer_bucket(r.d.hash, 2);
		expect_rule(&r, want, CPUSTEER_RULE_DST, 64, what);
		seen[r.d.cpu & 1]++;
	}
	ASSERT_TRUE(seen[0] && seen[1], "the set's flows reach both of its CPUs");
	fixture_stop(&e);
}

/* What the configuration names is all the program reads: the copy in
 * force, and only the kinds of rule it looks up.
 */
static void configuration_names_copy_and_kinds(void)
{
	struct fixture_result r;
	struct fixture e;

	fixture_init(&e);
	FIXTURE_START(&e);
	put_rules(&e, 0, 0, (const char *const[]){ "dst 10.0.0.0/8 0", NULL });
	put_rules(&e, 1, 0, (const char *const[]){ "dst 10.0.0.0/8 1", NULL });
	r = run_flow(&e, 4, "192.0.2.1", "10.0.0.9", 7);
	expect_rule(&r, 1, CPUSTEER_RULE_DST, 8, "copy 1 in force");
	e.o.cfg.rules &= ~CPUSTEER_RULES_COPY_1;
	ASSERT_EQ(instance_write_config(&e.in, &e.o.cfg), 0, "back to copy 0");
	r = run_flow(&e, 4, "192.0.2.1", "10.0.0.9", 7);
	expect_rule(&r, 0, CPUSTEER_RULE_DST, 8, "copy 0 in force");
	e.o.cfg.rules = CPUSTEER_RULES_IPV4_SRC;
	ASSERT_EQ(instance_write_config(&e.in, &e.o.cfg), 0, "only src rules looked up");
	r = run_flow(&e, 4, "192.0.2.1", "10.0.0.9", 7);
	ASSERT_EQ(r.d.rule, CPUSTEER_RULE_NONE, "a dst rule, not looked up, matches nothing");
	fixture_stop(&e);
}

/* The steering program itself follows the rules, and every frame is
 * counted once: rule hits are notes on frames the redirect slots count.
 */
static void steering_program_counts_rule_hits(void)
{
	struct fixture_counts before, after, d;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_result r;
	struct pkt_spec s;
	struct fixture e;
	__u64 hits[2] = { 0 }, *all;
	size_t len;

	fixture_init(&e);
	e.with_steer = true;
	FIXTURE_START(&e);
	put_rules(&e, 0, 0, (const char *const[]){ "dst 10.0.0.0/24 1", NULL });
	pkt_spec_init(&s, 4, IPPROTO_UDP);	/* 10.0.0.1 -> 10.0.0.2 */
	len = fixture_build(&s, frame);
	ASSERT_EQ(fixture_read_counts(&e, &before), 0, "counters before");
	r = fixture_run_frame_how(&e, frame, len, (struct fixture_run_how){
		.prog = instance_prog_fd(&e.in, false), .repeat = 50 });
	ASSERT_EQ(r.err, 0, "test run");
	ASSERT_EQ(r.retval, XDP_REDIRECT, "redirected");
	ASSERT_EQ(fixture_read_counts(&e, &after), 0, "counters after");
	d = fixture_counts_since(&before, &after);
	ASSERT_EQ(d.c.rx_packets, 50, "every run counted");
	ASSERT_EQ(d.to[1], 50, "all to the rule's CPU");
	ASSERT_EQ(d.redirected, d.c.rx_packets, "redirects reconcile with frames in");
	all = calloc(e.in.ncpus, sizeof(*all));
	ASSERT_TRUE(all && !rule_maps_read_hits(&e.in, all), "hits read");
	if (all) {
		hits[0] = all[0];
		hits[1] = e.in.ncpus > 1 ? all[1] : 0;
	}
	ASSERT_EQ(hits[1], 50, "rule hits towards CPU 1");
	ASSERT_EQ(hits[0], 0, "none towards CPU 0");
	free(all);
	fixture_stop(&e);
}

/* The rule a flow should meet, read from the spec by linear search: of
 * the rules whose prefix holds the address of their direction, the
 * longest, a dst rule before a src rule of its length. NULL: none.
 */
static const struct prefix_rule *reference_rule(const struct prefix_rules *rs,
						const __u8 src[4], const __u8 dst[4])
{
	const struct prefix_rule *best = NULL, *r;
	__u32 a, p, mask;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		r = &rs->rule[i];
		memcpy(&a, r->direction == CPUSTEER_RULE_SRC ? src : dst, 4);
		memcpy(&p, r->addr, 4);
		mask = r->prefixlen ? htonl(~0u << (32 - r->prefixlen)) : 0;
		if ((a & mask) != p)
			continue;
		if (!best || r->prefixlen > best->prefixlen ||
		    (r->prefixlen == best->prefixlen && r->direction == CPUSTEER_RULE_DST))
			best = r;
	}
	return best;
}

/* Random rules in a small corner of the address space, so that flows
 * meet many of them at once, against the reference above.
 */
static void random_rules_match_the_spec(void)
{
	struct prefix_rules rs = { 0 };
	const struct prefix_rule *want;
	struct prefix_rule r = { .family = 4, .ncpus = 1 };
	struct fixture_result got;
	struct pkt_spec s;
	struct fixture e;
	__u32 seed = 12345, i, a, checked = 0, matched = 0;
	char what[96];

#define NEXT() (seed = seed * 1103515245u + 12345u, seed >> 8)
	for (i = 0; i < 300; i++) {
		r.direction = NEXT() & 1 ? CPUSTEER_RULE_SRC : CPUSTEER_RULE_DST;
		r.prefixlen = 22 + NEXT() % 11;	/* /22 to /32 within 10.0.0.0/16 */
		a = 0x0a000000 | (NEXT() & 0xffff);
		a &= ~0u << (32 - r.prefixlen);
		a = htonl(a);
		memcpy(r.addr, &a, 4);
		r.cpu[0] = NEXT() & 1;
		rules_append(&rs, &r);
	}
	/* One rule per key, the last written wins, as in the trie. */
	for (i = 0; i < rs.n; i++) {
		size_t k;

		for (k = i + 1; k < rs.n; k++)
			if (rs.rule[k].direction == rs.rule[i].direction &&
			    rs.rule[k].prefixlen == rs.rule[i].prefixlen &&
			    !memcmp(rs.rule[k].addr, rs.rule[i].addr, 4))
				rs.rule[i].ncpus = 0;	/* shadowed */
	}
	for (i = 0, a = 0; i < rs.n; i++)
		if (rs.rule[i].ncpus)
			rs.rule[a++] = rs.rule[i];
	rs.n = a;
	fixture_init(&e);
	FIXTURE_START(&e);
	ASSERT_EQ(rule_maps_fill(&e.in, 0, &rs), 0, "rules written");
	e.o.cfg.rules = rules_kinds(&rs);
	ASSERT_EQ(instance_write_config(&e.in, &e.o.cfg), 0, "configuration written");
	for (i = 0; i < 2000 && !tu_failures; i++) {
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		a = htonl(0x0a000000 | (NEXT() & 0xffff));
		memcpy(s.saddr, &a, 4);
		a = htonl(0x0a000000 | (NEXT() & 0xffff));
		memcpy(s.daddr, &a, 4);
		s.sport = NEXT();
		got = fixture_run_spec(&e, &s);
		want = reference_rule(&rs, s.saddr, s.daddr);
		snprintf(what, sizeof(what), "flow %u", i);
		if (!want) {
			ASSERT_EQ(got.d.rule, CPUSTEER_RULE_NONE, what);
		} else {
			expect_rule(&got, want->cpu[0], want->direction, want->prefixlen, what);
			matched++;
		}
		checked++;
	}
#undef NEXT
	printf("#   %zu rules, %u flows, %u of them matched a rule\n", rs.n, checked, matched);
	ASSERT_TRUE(matched > checked / 4 && matched < checked, "flows both meet rules and miss them");
	rules_free(&rs);
	fixture_stop(&e);
}

/* A rule's text is taken whole or not at all, and its CPUs in order. */
static void rule_text_is_strict(void)
{
	static const char *const bad[] = {
		"dst 10.0.0.0/8 1 2",		/* a word more: not ignored */
		"dst 10.0.0.0/8 1 # queue 1",	/* no comment after a rule */
		"dst 10.0.0.1/8 1",		/* host bits */
		"dst 10.0.0.0/8",		/* no CPUs */
		"both 10.0.0.0/8 1",
		"dst 10.0.0.0/33 1",
		"dst 10.0.0.0/-1 1",
		"dst ::/129 1",
		"dst 10.0.0.0/8 0-16",		/* 17 CPUs */
		NULL,
	};
	struct prefix_rule r;
	char why[256];
	const char *const *t;

	for (t = bad; *t; t++)
		ASSERT_NE(rule_parse(*t, true, &r, why, sizeof(why)), 0, *t);
	ASSERT_EQ(rule_parse("dst 10.0.0.0/8 7,3,5", true, &r, why, sizeof(why)), 0, "7,3,5");
	ASSERT_TRUE(r.ncpus == 3 && r.cpu[0] == 3 && r.cpu[1] == 5 && r.cpu[2] == 7,
		    "a rule's CPUs sorted: 3,5,7");
	ASSERT_EQ(rule_parse("src ::/0 0-15", true, &r, why, sizeof(why)), 0, "16 CPUs, ::/0");
	ASSERT_EQ(rule_parse("dst 10.0.0.0/8", false, &r, why, sizeof(why)), 0, "a key alone");
	ASSERT_NE(rule_parse("dst 10.0.0.0/8 1", false, &r, why, sizeof(why)), 0,
		  "a key with CPUs where a key alone is asked for");
}

static const struct tu_test tests[] = {
	TU_TEST(rule_sends_matching_flows_to_its_cpu),
	TU_TEST(longest_prefix_wins_and_a_tie_goes_to_dst),
	TU_TEST(rule_cpu_set_is_picked_by_hash),
	TU_TEST(configuration_names_copy_and_kinds),
	TU_TEST(steering_program_counts_rule_hits),
	TU_TEST(random_rules_match_the_spec),
	TU_TEST(rule_text_is_strict),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
