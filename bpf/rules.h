/* SPDX-License-Identifier: GPL-2.0 */
/* Prefix rules (cpusteer.h): the tries, and the rule a flow's addresses
 * match. Read only when the configuration names kinds of rule: a frame
 * of an instance without rules pays no test on the default
 * configuration (config_is_default) and one on the others.
 */
#ifndef CPUSTEER_RULES_H
#define CPUSTEER_RULES_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cpusteer.h"
#include "parse.h"

/* The two copies of each family's trie (CPUSTEER_RULES_COPY_1).
 * Nodes are allocated as rules are added, so the limit costs nothing.
 */
#define RULE_TRIE(name, key_type)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);			\
		__type(key, key_type);					\
		__type(value, struct cpusteer_rule);			\
		__uint(max_entries, CPUSTEER_MAX_RULES);		\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
	} name SEC(".maps")

RULE_TRIE(rules_ipv4_0, struct cpusteer_rule_key_ipv4);
RULE_TRIE(rules_ipv4_1, struct cpusteer_rule_key_ipv4);
RULE_TRIE(rules_ipv6_0, struct cpusteer_rule_key_ipv6);
RULE_TRIE(rules_ipv6_1, struct cpusteer_rule_key_ipv6);

/* Frames a rule sent towards each CPU, per receiving CPU; the loader
 * gives it an entry per possible CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} rule_hits SEC(".maps");

/* The longer of a source and a destination match; a tie goes to the
 * destination, which is where a shaper's downstream subscriber is.
 */
static __always_inline const struct cpusteer_rule *
rule_longer(const struct cpusteer_rule *src, const struct cpusteer_rule *dst)
{
	if (dst && (!src || dst->prefixlen >= src->prefixlen))
		return dst;
	return src;
}

/* The rule an IPv4 flow's addresses (its address word, struct flow)
 * match, or NULL. Subprograms, not inlined, that take the addresses as
 * values: only frames of an instance with rules call them, and given the
 * flow by pointer, every frame's flow had to live on the stack.
 */
static __noinline const struct cpusteer_rule *rule_for_ipv4(__u64 addrs, __u32 rules)
{
	void *trie = rules & CPUSTEER_RULES_COPY_1 ? (void *)&rules_ipv4_1 : (void *)&rules_ipv4_0;
	const struct cpusteer_rule *src = NULL, *dst = NULL;
	struct cpusteer_rule_key_ipv4 k = { .prefixlen = 8 + 32 };

	if (rules & CPUSTEER_RULES_IPV4_SRC) {
		k.direction = CPUSTEER_RULE_SRC;
		__builtin_memcpy(k.addr, &addrs, 4);
		src = bpf_map_lookup_elem(trie, &k);
	}
	if (rules & CPUSTEER_RULES_IPV4_DST) {
		k.direction = CPUSTEER_RULE_DST;
		__builtin_memcpy(k.addr, (const __u8 *)&addrs + 4, 4);
		dst = bpf_map_lookup_elem(trie, &k);
	}
	return rule_longer(src, dst);
}

/* The same for IPv6: source words s0, s1, destination words d0, d1. */
static __noinline const struct cpusteer_rule *rule_for_ipv6(__u64 s0, __u64 s1, __u64 d0,
							    __u64 d1, __u32 rules)
{
	void *trie = rules & CPUSTEER_RULES_COPY_1 ? (void *)&rules_ipv6_1 : (void *)&rules_ipv6_0;
	const struct cpusteer_rule *src = NULL, *dst = NULL;
	struct cpusteer_rule_key_ipv6 k = { .prefixlen = 8 + 128 };

	if (rules & CPUSTEER_RULES_IPV6_SRC) {
		k.direction = CPUSTEER_RULE_SRC;
		__builtin_memcpy(k.addr, &s0, 8);
		__builtin_memcpy(k.addr + 8, &s1, 8);
		src = bpf_map_lookup_elem(trie, &k);
	}
	if (rules & CPUSTEER_RULES_IPV6_DST) {
		k.direction = CPUSTEER_RULE_DST;
		__builtin_memcpy(k.addr, &d0, 8);
		__builtin_memcpy(k.addr + 8, &d1, 8);
		dst = bpf_map_lookup_elem(trie, &k);
	}
	return rule_longer(src, dst);
}

/* The CPU of a matched rule: its only one, or one of its set picked by
 * the flow's hash as a bucket is (cpusteer_bucket), counted as a hit.
 */
static __always_inline __u32 rule_cpu(const struct cpusteer_rule *r, __u32 hash)
{
	__u32 i = 0, cpu;
	__u64 *hits;

	if (r->ncpus > 1)
		i = cpusteer_bucket(hash, r->ncpus);
	cpu = r->cpu[i & (CPUSTEER_MAX_RULE_CPUS - 1)];
	hits = bpf_map_lookup_elem(&rule_hits, &cpu);
	if (hits)
		(*hits)++;
	return cpu;
}

#endif
