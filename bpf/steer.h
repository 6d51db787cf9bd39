/* SPDX-License-Identifier: GPL-2.0 */
/* What the steering objects share: the maps, the parser's verdicts and
 * the steering of a parsed frame. steer.bpf.c holds the programs of every
 * load; steer_nic.bpf.c the one --hash nic adds, in an object of its own
 * because the kernel loads a program that reads RX metadata only bound to
 * a device, and bpftool, like any loader of a whole object, could then
 * load steer.bpf.o nowhere. The loader points steer_nic's maps at the
 * maps of the instance, so both see one set.
 */
#ifndef CPUSTEER_STEER_H
#define CPUSTEER_STEER_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cpusteer.h"
#include "parse.h"
#include "hash.h"
#include "tunnel.h"
#include "rules.h"
#include "plain.h"

/* The machine's possible CPUs, set by the loader: the CPUs a redirect can
 * name, and the redirect slots after the counters (cpusteer.h).
 */
const volatile __u32 nr_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
	__uint(max_entries, 1); /* the loader sizes it to the possible CPUs */
} cpu_map SEC(".maps");

/* Mappable, so that `cpusteer set` reads and rewrites buckets with plain
 * loads and stores instead of a system call per bucket; each entry is one
 * aligned 32-bit word, which a packet always reads whole.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, CPUSTEER_MAX_BUCKETS);
	__uint(map_flags, BPF_F_MMAPABLE);
} bucket_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cpusteer_config);
	__uint(max_entries, CPUSTEER_CONFIG_SLOTS);
} config_map SEC(".maps");

/* The config_map slot in force (cpusteer.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} config_slot SEC(".maps");

/* Sized by size only, not by type: the loader lengthens the value by a
 * redirect slot per possible CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, CPUSTEER_COUNTERS_VALUE_SIZE(1));
	__uint(max_entries, 1);
} counters SEC(".maps");

/* One entry per bucket the instance can have while --bucket-stats counts,
 * and a single unused one otherwise: the loader sizes it, since 16 bytes
 * per bucket per possible CPU is memory only the option should cost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cpusteer_bucket_load);
	__uint(max_entries, 1);
} bucket_load SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cpusteer_remote_counters);
	__uint(max_entries, 1);
} remote_counters SEC(".maps");

/* Target of the redirect second stage, one entry so `set` can change it. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} remote_devmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cpusteer_decision);
	__uint(max_entries, 1);
} decision SEC(".maps");

/* Storage only: the loader's record of this instance, pinned beside the
 * maps for later commands.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct cpusteer_instance_state);
	__uint(max_entries, 1);
} instance_state SEC(".maps");

/* The configuration in force: one slot, read through one index load, so
 * every field a packet uses comes from the same `set`.
 */
static __always_inline const struct cpusteer_config *active_config(void)
{
	__u32 zero = 0, *slot;

	slot = bpf_map_lookup_elem(&config_slot, &zero);
	if (!slot)
		return NULL;
	return bpf_map_lookup_elem(&config_map, slot);
}

/* The record's flow key, in host order for display, built from the wire
 * words only when classify asks for a record.
 */
static __always_inline void flow_to_key(const struct flow *f, struct cpusteer_flow_key *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	if (f->family == 6) {
		__builtin_memcpy(k->saddr, &f->addr[0], sizeof(k->saddr));
		__builtin_memcpy(k->daddr, &f->addr[2], sizeof(k->daddr));
	} else {
		k->saddr[0] = (__u32)f->addr[0];
		k->daddr[0] = (__u32)(f->addr[0] >> 32);
	}
	k->sport = bpf_ntohs((__u16)f->ports);
	k->dport = bpf_ntohs(f->ports >> 16);
	k->proto = f->proto;
	k->family = f->family;
}

/* What the verdict helpers below need to know about the packet at hand.
 * `record` is a compile-time constant: cpusteer_classify records each
 * decision for user space, cpusteer_steer is the same code without a
 * single instruction of it.
 */
struct packet {
	struct xdp_md *ctx;
	struct cpusteer_counters *cnt;
	const struct flow *f;	/* the flow hashed; NULL when the frame is
				 * not read (no record) */
	bool record;
	/* For the record only: the tunnel the frame came through
	 * (CPUSTEER_TUNNELS: none), its outer flow, and why `f` is that
	 * outer flow after all (CPUSTEER_INNER_FALLBACKS: it is not).
	 */
	__u32 tunnel;
	const struct flow *outer;
	__u32 fallback;
};

static __always_inline void record(const struct packet *pk, __u32 hash, __u32 bucket,
				   __u32 cpu, __u32 outcome, __u32 reason)
{
	__u32 zero = 0;
	struct cpusteer_decision *d;

	if (!pk->record)
		return;
	d = bpf_map_lookup_elem(&decision, &zero);
	if (!d)
		return;
	flow_to_key(pk->f, &d->key);
	d->tunnel = pk->tunnel;
	d->inner_fallback = pk->fallback;
	if (pk->tunnel < CPUSTEER_TUNNELS) {
		flow_to_key(pk->outer, &d->outer);
		d->path = pk->outer->notes & CPUSTEER_PATH_BITS;
	} else {
		__builtin_memset(&d->outer, 0, sizeof(d->outer));
		d->path = pk->f->notes & CPUSTEER_PATH_BITS;
	}
	d->hash = hash;
	d->bucket = bucket;
	d->cpu = cpu;
	d->outcome = outcome;
	d->reason = reason;
	d->rule = CPUSTEER_RULE_NONE;
	d->rule_prefixlen = 0;
}

/* The rule that chose the CPU, written over what record() left. */
static __always_inline void record_rule(const struct packet *pk, const struct cpusteer_rule *r)
{
	__u32 zero = 0;
	struct cpusteer_decision *d;

	if (!pk->record)
		return;
	d = bpf_map_lookup_elem(&decision, &zero);
	if (d) {
		d->rule = r->direction;
		d->rule_prefixlen = r->prefixlen;
	}
}

/* A frame's layer-2 path counted by kind in `counts`, path_steered or
 * path_passed: tags and a PPPoE session count in both kinds.
 */
static __always_inline void count_path(__u64 *counts, __u8 notes)
{
	if (notes & CPUSTEER_PATH_VLAN)
		counts[CPUSTEER_PATH_KIND_VLAN]++;
	if (notes & CPUSTEER_PATH_PPPOE)
		counts[CPUSTEER_PATH_KIND_PPPOE]++;
	if (notes & CPUSTEER_PATH_MPLS)
		counts[CPUSTEER_PATH_KIND_MPLS]++;
}

static __always_inline int pass_for(const struct packet *pk, __u32 reason)
{
	if (reason < CPUSTEER_PASS_REASONS)
		pk->cnt->passed[reason]++;
	if (pk->f->notes & CPUSTEER_PATH_BITS)
		count_path(pk->cnt->path_passed, pk->f->notes);
	record(pk, 0, 0, CPUSTEER_NON_IP_PASS, CPUSTEER_OUT_PASS, reason);
	return XDP_PASS;
}

static __always_inline int fail_with(const struct packet *pk, __u32 hash, __u32 bucket,
				     __u32 cpu, __u32 err)
{
	pk->cnt->errors[err]++;
	record(pk, hash, bucket, cpu, CPUSTEER_OUT_ERROR, err);
	return XDP_PASS;
}

/* A CPU with no cpumap entry makes bpf_redirect_map() return the flags'
 * fallback verdict; asking for XDP_ABORTED there tells that case apart, and
 * the packet then goes to the local stack, counted as an error. A CPU
 * number beyond the machine's has no redirect slot and is a bad bucket.
 */
static __always_inline int redirect_to(const struct packet *pk, __u32 hash, __u32 bucket,
				       __u32 cpu)
{
	__u64 *redirected = (__u64 *)(pk->cnt + 1), *slot;

	/* The check comes after a barrier, so that the value it bounds is
	 * the one the slot's address is formed from, right after it, and
	 * before the call, which `cpu` survives in a register or spilled.
	 * Checked before the barrier, the value was spilled unchecked
	 * (clang 14 in steer_flow, clang 19 where a rule's CPU meets a
	 * bucket's in one tail), and 6.1's verifier carries no bound to a
	 * spilled copy ("R2 unbounded memory access").
	 */
	barrier_var(cpu);
	if (cpu >= nr_cpus)
		return fail_with(pk, hash, bucket, cpu, CPUSTEER_ERR_BAD_BUCKET);
	slot = &redirected[cpu];
	barrier_var(slot);
	if (bpf_redirect_map(&cpu_map, cpu, XDP_ABORTED) != XDP_REDIRECT)
		return fail_with(pk, hash, bucket, cpu, CPUSTEER_ERR_NO_CPUMAP_ENTRY);
	(*slot)++;
	record(pk, hash, bucket, cpu, CPUSTEER_OUT_REDIRECT, 0);
	return XDP_REDIRECT;
}

/* A bucket past the map's entries (the table grew after the load sized
 * the map) goes uncounted: `set` refuses to grow it that far. The bytes
 * are those of the first buffer, the whole frame but for a multi-buffer
 * one: bpf_xdp_get_buff_len() would count fragments too, but as a helper
 * call it doubled what counting costs a packet (bench --program).
 */
static __always_inline void count_bucket_load(const struct packet *pk, __u32 bucket)
{
	struct cpusteer_bucket_load *load = bpf_map_lookup_elem(&bucket_load, &bucket);

	if (load) {
		load->packets++;
		load->bytes += (long)pk->ctx->data_end - (long)pk->ctx->data;
	}
}

static __always_inline int redirect_via_bucket(const struct packet *pk,
					       const struct cpusteer_config *cfg,
					       __u32 hash, __u32 bucket)
{
	__u32 *cpu;

	if (bucket >= cfg->nbuckets)
		return fail_with(pk, hash, bucket, CPUSTEER_NON_IP_PASS, CPUSTEER_ERR_BAD_BUCKET);
	cpu = bpf_map_lookup_elem(&bucket_table, &bucket);
	if (!cpu)
		return fail_with(pk, hash, bucket, CPUSTEER_NON_IP_PASS, CPUSTEER_ERR_BAD_BUCKET);
	if (cfg->bucket_stats)
		count_bucket_load(pk, bucket);
	return redirect_to(pk, hash, bucket, *cpu);
}

/* The flow whose hash is `hash` to its bucket's CPU. */
static __always_inline int redirect_by_hash(const struct packet *pk,
					    const struct cpusteer_config *cfg, __u32 hash)
{
	return redirect_via_bucket(pk, cfg, hash, cpusteer_bucket(hash, cfg->nbuckets));
}

/* The rule the flow's addresses match, or NULL. */
static __always_inline const struct cpusteer_rule *rule_of_flow(const struct flow *f,
								 __u32 rules)
{
	if (f->family == 4)
		return rule_for_ipv4(f->addr[0], rules);
	return rule_for_ipv6(f->addr[0], f->addr[1], f->addr[2], f->addr[3], rules);
}

/* A flow of an instance with rules that matched `r`: to one of its
 * CPUs.
 */
static __always_inline int steer_by_rule(const struct packet *pk, __u32 hash,
					 const struct cpusteer_rule *r)
{
	int act = redirect_to(pk, hash, CPUSTEER_NO_BUCKET, rule_cpu(r, hash));

	record_rule(pk, r);
	return act;
}

/* The flow is complete: count what it was and send it to its bucket's
 * CPU, or its rule's. Inlined once per outer address family and once more for tunnels,
 * so that the hash is specialised to what each path knows of the flow and
 * the paths share no merged state: merged, the tunnel's path and the
 * others made IPv4/UDP 30 instructions longer.
 */
static __always_inline int steer_flow(const struct packet *pk,
				      const struct cpusteer_config *cfg)
{
	const struct flow *f = pk->f;
	const struct cpusteer_rule *r;
	__u32 hash;

	/* One test for the common frame, which has none of these notes:
	 * tested apart, clang picked the counter by a select and then tested
	 * again. A tunnel's layer-2 path is its outer frame's, which
	 * look_inside counted.
	 */
	if (f->notes & (FLOW_FRAGMENT | FLOW_L3_ONLY | CPUSTEER_PATH_BITS)) {
		if (f->notes & FLOW_FRAGMENT)
			pk->cnt->seen_fragments++;
		else if (f->notes & FLOW_L3_ONLY)
			pk->cnt->seen_l3_only++;
		if (pk->tunnel >= CPUSTEER_TUNNELS)
			count_path(pk->cnt->path_steered, f->notes);
	}
	/* The default configuration takes a branch of its own, on which the
	 * addresses die with the hash: looked up on a path shared with it,
	 * the rules made IPv6/UDP 5 instructions longer. The branches meet
	 * again at the bucket, where the verifier's walks of them meet too.
	 */
	if (config_is_default(cfg)) {
		hash = multilinear_flow(f, cfg->multilinear_key);
	} else {
		hash = flow_hash(*f, cfg);
		r = cfg->rules ? rule_of_flow(f, cfg->rules) : NULL;
		if (r)
			return steer_by_rule(pk, hash, r);
	}
	return redirect_by_hash(pk, cfg, hash);
}

/* The fallback counters are indexed as words of the counters' value,
 * through a mask, which bounds the index for the verifier whatever clang
 * spilled (see look_inside). The mask may reach past them, but only into
 * the counters after them, and `why` is below CPUSTEER_INNER_FALLBACKS
 * wherever it is used.
 */
#define INNER_FALLBACK_WORD (__builtin_offsetof(struct cpusteer_counters, inner_fallback) / 8)
#define INNER_FALLBACK_MASK 7
_Static_assert(CPUSTEER_INNER_FALLBACKS <= INNER_FALLBACK_MASK + 1 &&
	       INNER_FALLBACK_WORD + INNER_FALLBACK_MASK <
	       sizeof(struct cpusteer_counters) / sizeof(__u64),
	       "the masked fallback index stays within the counters");

/* A frame of an enabled tunnel kind: steered by its inner flow, or by
 * its outer one when the inner cannot be read, counted either way. The
 * flow steered by is at->flow on every path: pointed at one of two flows,
 * the hash read it through a pointer per field.
 */
static __always_inline void look_inside(struct packet *pk, const struct frame *fr,
					struct tunnel_at *at, __u32 kind, __u32 inner,
					__u32 l4_off, __u32 l4_room)
{
	__u32 why;

	/* Every byte set: a global function reads it all. */
	__builtin_memset(at, 0, sizeof(*at));
	at->outer = *pk->f;
	at->kind = kind;
	at->inner = inner;
	at->l4_off = l4_off;
	at->dgram_end = l4_off + l4_room;
	parse_tunnel(fr->ctx, at);
	why = at->why;
	kind = at->kind;
	pk->f = &at->flow;
	/* A GRE header that names no enabled kind (gre_kind): the outer
	 * flow, which at->flow then is, and no tunnel to count.
	 */
	if (kind >= CPUSTEER_TUNNELS)
		return;
	pk->tunnel = kind;
	pk->outer = &at->outer;
	pk->fallback = why;
	if (at->outer.notes & CPUSTEER_PATH_BITS)
		count_path(pk->cnt->path_steered, at->outer.notes);
	if (why == CPUSTEER_INNER_FALLBACKS) {
		pk->cnt->inner_steered[kind]++;
	} else if (why < CPUSTEER_INNER_FALLBACKS) {
		/* Bounded again where it indexes, by a mask the compiler
		 * cannot drop as redundant: clang 19 spilled `why` before the
		 * check above, and 6.1's verifier carries no bound to a
		 * spilled copy ("R1 unbounded memory access").
		 */
		barrier_var(why);
		((__u64 *)pk->cnt)[INNER_FALLBACK_WORD + (why & INNER_FALLBACK_MASK)]++;
		pk->cnt->tunnel_fallback[kind]++;
	}
}

/* A parsed outer flow: looked into when it is a tunnel --inner names.
 * The transport header is taken as an offset as soon as --inner is
 * known to be on, and only then: the verifier knows nothing of a
 * difference of two packet pointers, so the parse's paths (one per length
 * of each extension header) meet there. Kept as a pointer until the frame
 * is known to be a tunnel, it split the states of tunnel_kind's branches
 * by every length and doubled the verifier's work.
 */
static __always_inline int steer_parsed(const struct packet *pk,
					const struct cpusteer_config *cfg,
					const struct frame *fr, const struct l4_span *l4)
{
	struct packet tunnelled = *pk;
	struct tunnel_at at;	/* read by steer_flow and the record */
	__u32 kind, l4_off;

	if (cfg->inner) {
		l4_off = frame_offset(fr, l4->start);
		kind = tunnel_kind(pk->f, cfg);
		if (kind < CPUSTEER_TUNNELS) {
			look_inside(&tunnelled, fr, &at, kind, cfg->inner, l4_off, l4->room);
			return steer_flow(&tunnelled, cfg);
		}
	}
	return steer_flow(pk, cfg);
}

/* The frame's flow, parsed and hashed with the key: every frame of the
 * software hash, and those the NIC gave no hash for.
 */
static __always_inline int parse_and_steer(struct xdp_md *ctx, struct cpusteer_counters *cnt,
					   const struct cpusteer_config *cfg, const bool record)
{
	struct frame fr = frame_of(ctx);
	__u32 reason = 0;
	struct flow f;
	struct packet pk = { .ctx = ctx, .cnt = cnt, .f = &f, .record = record,
			     .tunnel = CPUSTEER_TUNNELS, .fallback = CPUSTEER_INNER_FALLBACKS };
	struct l4_span l4;
	enum parse_status st;
	__be16 proto;
	void *l3;

	/* A record shows how far a passed frame was parsed, so it starts
	 * from zero; steering reads no field before the parser writes it.
	 */
	if (record)
		__builtin_memset(&f, 0, sizeof(f));
	f.ports = 0;
	f.notes = 0;

	if (parse_ethernet_header(&fr, fr.data, &l3, &proto, &reason) != PARSE_FLOW)
		return pass_for(&pk, reason);
	/* Untagged IP, the common case, reaches its parser in one compare
	 * (IPv4) or two (IPv6); frames with tags, a PPPoE session or labels
	 * come to the same tests after them. Written with labels, since
	 * clang would otherwise test the type again where the branches
	 * rejoin.
	 */
	if (proto == bpf_htons(ETH_P_IP))
		goto ipv4;
	if (proto == bpf_htons(ETH_P_IPV6))
		goto ipv6;
	if (is_vlan_tpid(proto)) {
		st = parse_vlan_tags(&fr, l3, &f, &l3, &proto, &reason);
		if (f.notes & FLOW_VLAN)
			pk.cnt->seen_vlan++;
		if (st != PARSE_FLOW)
			return pass_for(&pk, reason);
	}
	if (proto == bpf_htons(ETH_P_PPP_SES)) {
		st = parse_pppoe(&fr, l3, &f, &l3, &proto, &reason);
		if (f.notes & FLOW_PPPOE)
			pk.cnt->seen_pppoe++;
		if (st != PARSE_FLOW)
			return pass_for(&pk, reason);
	} else if (is_mpls(proto)) {
		st = parse_mpls(&fr, l3, &f, &l3, &proto, &reason);
		if (f.notes & FLOW_MPLS)
			pk.cnt->seen_mpls++;
		if (st != PARSE_FLOW)
			return pass_for(&pk, reason);
	}
	if (proto == bpf_htons(ETH_P_IP))
		goto ipv4;
	if (proto == bpf_htons(ETH_P_IPV6))
		goto ipv6;
	if (cfg->non_ip_cpu != CPUSTEER_NON_IP_PASS)
		return redirect_to(&pk, 0, 0, cfg->non_ip_cpu);
	return pass_for(&pk, CPUSTEER_PASS_NON_IP);
ipv4:
	if (parse_ipv4(&fr, l3, &f, &l4, &reason) == PARSE_FLOW)
		return steer_parsed(&pk, cfg, &fr, &l4);
	return pass_for(&pk, reason);
ipv6:
	if (parse_ipv6(&fr, l3, &f, &l4, &reason) == PARSE_FLOW)
		return steer_parsed(&pk, cfg, &fr, &l4);
	return pass_for(&pk, reason);
}

/* Whether the configuration leaves a plain frame (plain.h) nothing to do
 * but hash with multilinear: the default one, with no tunnel looked into.
 * --inner is tested first, so that a configuration that looks into
 * tunnels, whose frames are the dearest, turns the short parser down in
 * one test.
 */
static __always_inline bool config_is_plain(const struct cpusteer_config *cfg)
{
	return !cfg->inner && config_is_default(cfg);
}

#define NOT_PLAIN -1	/* no XDP action */

/* A plain frame's flow is complete and unremarkable: no counter but the
 * redirect's has anything to say of it. Inlined once per family, so that
 * each hashes a flow whose family is known: with one hash for both, clang
 * picked the key words through a pointer.
 */
static __always_inline int steer_plain_flow(const struct packet *pk,
					    const struct cpusteer_config *cfg)
{
	return redirect_by_hash(pk, cfg, multilinear_flow(pk->f, cfg->multilinear_key));
}

/* A plain frame to its bucket's CPU; NOT_PLAIN, with nothing counted, for
 * any other.
 */
static __always_inline int steer_plain(const struct packet *pk, const struct cpusteer_config *cfg,
				       struct flow *f)
{
	void *data = (void *)(long)pk->ctx->data, *end = (void *)(long)pk->ctx->data_end;
	__be16 proto;

	if (data + PLAIN_IPV4_END > end)
		return NOT_PLAIN;
	proto = ((struct ethhdr *)data)->h_proto;
	if (proto == bpf_htons(ETH_P_IP) && plain_ipv4(data, end, f))
		return steer_plain_flow(pk, cfg);
	if (proto == bpf_htons(ETH_P_IPV6) && plain_ipv6(data, end, f))
		return steer_plain_flow(pk, cfg);
	return NOT_PLAIN;
}

static __always_inline int steer_frame(struct xdp_md *ctx, const bool record)
{
	const struct cpusteer_config *cfg;
	__u32 zero = 0;
	struct flow f;
	struct packet pk = { .ctx = ctx, .f = &f, .record = record,
			     .tunnel = CPUSTEER_TUNNELS, .fallback = CPUSTEER_INNER_FALLBACKS };
	int act;

	pk.cnt = bpf_map_lookup_elem(&counters, &zero);
	cfg = active_config();
	if (!pk.cnt || !cfg)
		return XDP_PASS; /* cannot happen: arrays with entries 0 and 0-1 */
	pk.cnt->rx_packets++;
	if (config_is_plain(cfg)) {
		act = steer_plain(&pk, cfg, &f);
		if (act != NOT_PLAIN)
			return act;
	}
	return parse_and_steer(ctx, pk.cnt, cfg, record);
}

#endif
