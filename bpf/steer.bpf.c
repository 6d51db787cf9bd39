// SPDX-License-Identifier: GPL-2.0
/* The steering program and its cpumap second stages.
 *
 * cpusteer_steer parses each frame, hashes its flow with the per-load key,
 * and redirects it through the cpumap to the CPU that owns the flow's
 * bucket. cpusteer_notouch redirects without reading the frame: it is the
 * floor that benchmarks compare steering against. The cpusteer_remote_*
 * programs run on the target CPU, in the cpumap kthread.
 *
 * Every program here that touches the cpumap is built frags-aware: the
 * first program to use a cpumap fixes its "has frags" flag, and a second
 * stage with the other flag is refused (reported as ENOMEM).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cpusteer.h"
#include "parse.h"
#include "hash.h"

/* Set by `cpusteer classify` only: record each decision for user space. */
const volatile bool record_decisions = false;
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

static __always_inline void
record(const struct cpusteer_flow_key *key, __u32 hash, __u32 bucket,
       __u32 cpu, __u32 outcome, __u32 reason)
{
	__u32 zero = 0;
	struct cpusteer_decision *d;

	if (!record_decisions)
		return;
	d = bpf_map_lookup_elem(&decision, &zero);
	if (!d)
		return;
	d->key = *key;
	d->hash = hash;
	d->bucket = bucket;
	d->cpu = cpu;
	d->outcome = outcome;
	d->reason = reason;
}

static __always_inline int pass_for(struct cpusteer_counters *cnt,
				    const struct cpusteer_flow_key *key,
				    __u32 reason)
{
	if (reason < CPUSTEER_PASS_REASONS)
		cnt->passed[reason]++;
	record(key, 0, 0, CPUSTEER_NON_IP_PASS, CPUSTEER_OUT_PASS, reason);
	return XDP_PASS;
}

static __always_inline int fail_with(struct cpusteer_counters *cnt,
				     const struct cpusteer_flow_key *key,
				     __u32 hash, __u32 bucket, __u32 cpu,
				     __u32 err)
{
	cnt->errors[err]++;
	record(key, hash, bucket, cpu, CPUSTEER_OUT_ERROR, err);
	return XDP_PASS;
}

/* A CPU with no cpumap entry makes bpf_redirect_map() return the flags'
 * fallback verdict; asking for XDP_ABORTED there tells that case apart, and
 * the packet then goes to the local stack, counted as an error. A CPU
 * number beyond the machine's has no redirect slot and is a bad bucket.
 */
static __always_inline int redirect_to(struct cpusteer_counters *cnt,
				       const struct cpusteer_flow_key *key,
				       __u32 hash, __u32 bucket, __u32 cpu)
{
	__u64 *redirected = (__u64 *)(cnt + 1);

	if (cpu >= nr_cpus)
		return fail_with(cnt, key, hash, bucket, cpu,
				 CPUSTEER_ERR_BAD_BUCKET);
	if (bpf_redirect_map(&cpu_map, cpu, XDP_ABORTED) != XDP_REDIRECT)
		return fail_with(cnt, key, hash, bucket, cpu,
				 CPUSTEER_ERR_NO_CPUMAP_ENTRY);
	/* The slot's address must be formed from the bounded `cpu`, after
	 * the check: a compiler may not hoist it above this point.
	 */
	barrier_var(cpu);
	redirected[cpu]++;
	record(key, hash, bucket, cpu, CPUSTEER_OUT_REDIRECT, 0);
	return XDP_REDIRECT;
}

static __always_inline int redirect_via_bucket(struct cpusteer_counters *cnt,
					       const struct cpusteer_config *cfg,
					       const struct cpusteer_flow_key *key,
					       __u32 hash, __u32 bucket)
{
	__u32 *cpu;

	if (bucket >= cfg->nbuckets)
		return fail_with(cnt, key, hash, bucket, CPUSTEER_NON_IP_PASS,
				 CPUSTEER_ERR_BAD_BUCKET);
	cpu = bpf_map_lookup_elem(&bucket_table, &bucket);
	if (!cpu)
		return fail_with(cnt, key, hash, bucket, CPUSTEER_NON_IP_PASS,
				 CPUSTEER_ERR_BAD_BUCKET);
	return redirect_to(cnt, key, hash, bucket, *cpu);
}

SEC("xdp.frags")
int cpusteer_steer(struct xdp_md *ctx)
{
	struct cpusteer_flow_key key = {}, hashed;
	struct parse_notes notes = {};
	struct cpusteer_counters *cnt;
	const struct cpusteer_config *cfg;
	__u32 zero = 0, reason = 0, hash, bucket;
	enum parse_status status;

	cnt = bpf_map_lookup_elem(&counters, &zero);
	cfg = active_config();
	if (!cnt || !cfg)
		return XDP_PASS; /* cannot happen: arrays with entries 0 and 0-1 */
	cnt->rx_packets++;

	status = parse_packet(ctx, &key, &notes, &reason);
	if (notes.vlan)
		cnt->seen_vlan++;
	if (status == PARSE_FAILED)
		return pass_for(cnt, &key, reason);
	if (status == PARSE_NON_IP) {
		if (cfg->non_ip_cpu == CPUSTEER_NON_IP_PASS)
			return pass_for(cnt, &key, CPUSTEER_PASS_NON_IP);
		return redirect_to(cnt, &key, 0, 0, cfg->non_ip_cpu);
	}
	if (notes.fragment)
		cnt->seen_fragments++;
	else if (notes.l3_only)
		cnt->seen_l3_only++;

	/* The record keeps the key as parsed; symmetric mode hashes an
	 * ordered copy.
	 */
	if (cfg->symmetric) {
		hashed = key;
		flow_key_order_ends(&hashed);
		hash = flow_hash(&hashed, cfg);
	} else {
		hash = flow_hash(&key, cfg);
	}
	bucket = cpusteer_bucket(hash, cfg->nbuckets);
	return redirect_via_bucket(cnt, cfg, &key, hash, bucket);
}

/* The benchmark floor: the same counters, table lookup and redirect as
 * cpusteer_steer, but buckets are taken round-robin and the frame is never
 * read.
 */
SEC("xdp.frags")
int cpusteer_notouch(struct xdp_md *ctx)
{
	struct cpusteer_flow_key key = {};
	struct cpusteer_counters *cnt;
	const struct cpusteer_config *cfg;
	__u32 zero = 0, bucket;

	cnt = bpf_map_lookup_elem(&counters, &zero);
	cfg = active_config();
	if (!cnt || !cfg)
		return XDP_PASS; /* cannot happen: arrays with entries 0 and 0-1 */
	cnt->rx_packets++;
	if (!cfg->nbuckets)
		return fail_with(cnt, &key, 0, 0, CPUSTEER_NON_IP_PASS,
				 CPUSTEER_ERR_BAD_BUCKET);
	bucket = cnt->rx_packets % cfg->nbuckets;
	return redirect_via_bucket(cnt, cfg, &key, 0, bucket);
}

static __always_inline struct cpusteer_remote_counters *remote_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&remote_counters, &zero);
}

SEC("xdp.frags/cpumap")
int cpusteer_remote_pass(struct xdp_md *ctx)
{
	struct cpusteer_remote_counters *rc = remote_counts();

	if (rc)
		rc->passed++;
	return XDP_PASS;
}

SEC("xdp.frags/cpumap")
int cpusteer_remote_drop(struct xdp_md *ctx)
{
	struct cpusteer_remote_counters *rc = remote_counts();

	if (rc)
		rc->dropped++;
	return XDP_DROP;
}

/* An empty devmap slot makes the redirect fail; the frame is then dropped
 * and counted, since the cpumap kthread has nowhere else to send it.
 */
SEC("xdp.frags/cpumap")
int cpusteer_remote_redirect(struct xdp_md *ctx)
{
	struct cpusteer_remote_counters *rc = remote_counts();
	int act = bpf_redirect_map(&remote_devmap, 0, XDP_DROP);

	if (rc) {
		if (act == XDP_REDIRECT)
			rc->redirected++;
		else
			rc->redirect_errors++;
	}
	return act;
}

char LICENSE[] SEC("license") = "GPL";
