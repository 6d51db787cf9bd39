// SPDX-License-Identifier: GPL-2.0
/* Tracepoint counters for `cpusteer stats`: what happens to frames after
 * the steering program let go of them. The cpumap tracepoints report the
 * bulk enqueue on the receiving CPU and the kthread on the target CPU; the
 * XDP error tracepoints report aborted verdicts and failed redirects.
 *
 * Every counter is a per-CPU array of plain __u64, keyed by a CPU number or
 * an XDP action, so the loader and this file share no layout beyond the
 * kernel's own numbering: the map's name says what it counts.
 *
 * The loader probes the kernel's BTF and leaves a program unloaded when
 * its tracepoint is missing or has a different signature, so each program
 * here must stand alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "cpusteer.h"

/* Written by the loader after load, before attach. The cpumap tracepoints
 * fire for every cpumap on the machine and the XDP error ones for every
 * device, so events of other instances and interfaces are skipped. An
 * ifindex is only unique inside one network namespace, hence the netns
 * inode beside it.
 */
__u32 cpumap_id;
__u32 ifindex;
__u32 netns_ino;

/* Enqueue counters are keyed by the target CPU, and the per-CPU slot is
 * the enqueuing (source) CPU: the tracepoint runs there. A flat
 * [source * MAX + target] array would need 65536 entries, each copied per
 * CPU; this way the source dimension comes free with the per-CPU copies,
 * every CPU writes only its own slot (no atomics), and the loader sizes
 * the key range to the possible CPUs.
 */
#define PERCPU_U64_ARRAY(name, entries)                 \
	struct {                                        \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); \
		__type(key, __u32);                     \
		__type(value, __u64);                   \
		__uint(max_entries, entries);           \
	} name SEC(".maps")

/* The loader sizes these to the possible CPUs. */
PERCPU_U64_ARRAY(enq_processed, 1);	/* frames, drops included */
PERCPU_U64_ARRAY(enq_drops, 1);		/* target queue full */
PERCPU_U64_ARRAY(enq_bulks, 1);		/* tracepoint hits */

/* The kthread runs on its target CPU, so the per-CPU slot is the target
 * and one entry is enough.
 */
PERCPU_U64_ARRAY(kt_processed, 1);
PERCPU_U64_ARRAY(kt_drops, 1);		/* skb allocation failures */
PERCPU_U64_ARRAY(kt_sched, 1);		/* the kthread slept and was woken */
PERCPU_U64_ARRAY(kt_xdp_pass, 1);	/* second-stage program verdicts */
PERCPU_U64_ARRAY(kt_xdp_drop, 1);
PERCPU_U64_ARRAY(kt_xdp_redirect, 1);

/* Keyed by XDP action; the last slot collects actions the kernel does not
 * define.
 */
#define EXCEPTION_SLOTS (XDP_REDIRECT + 2)
PERCPU_U64_ARRAY(exceptions, EXCEPTION_SLOTS);
PERCPU_U64_ARRAY(redirect_errs, 1);

static __always_inline void add(void *map, __u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);

	if (v)
		*v += n;
}

static __always_inline bool our_device(const struct net_device *dev)
{
	return dev->ifindex == ifindex &&
	       BPF_CORE_READ(dev, nd_net.net, ns.inum) == netns_ino;
}

SEC("tp_btf/xdp_cpumap_enqueue")
int BPF_PROG(cpusteer_enqueue, int map_id, unsigned int processed,
	     unsigned int drops, int to_cpu)
{
	if ((__u32)map_id != cpumap_id)
		return 0;
	add(&enq_processed, to_cpu, processed);
	add(&enq_drops, to_cpu, drops);
	add(&enq_bulks, to_cpu, 1);
	return 0;
}

SEC("tp_btf/xdp_cpumap_kthread")
int BPF_PROG(cpusteer_kthread, int map_id, unsigned int processed,
	     unsigned int drops, int sched, struct xdp_cpumap_stats *xdp_stats)
{
	if ((__u32)map_id != cpumap_id)
		return 0;
	add(&kt_processed, 0, processed);
	add(&kt_drops, 0, drops);
	add(&kt_sched, 0, sched ? 1 : 0);
	add(&kt_xdp_pass, 0, xdp_stats->pass);
	add(&kt_xdp_drop, 0, xdp_stats->drop);
	add(&kt_xdp_redirect, 0, xdp_stats->redirect);
	return 0;
}

SEC("tp_btf/xdp_exception")
int BPF_PROG(cpusteer_exception, const struct net_device *dev,
	     const struct bpf_prog *xdp, __u32 act)
{
	if (!our_device(dev))
		return 0;
	add(&exceptions, act <= XDP_REDIRECT ? act : XDP_REDIRECT + 1, 1);
	return 0;
}

/* Only the device is read, so the older six-argument form of this
 * tracepoint (a map pointer where 6.x has a map type and id) works too.
 */
SEC("tp_btf/xdp_redirect_err")
int BPF_PROG(cpusteer_redirect_err, const struct net_device *dev)
{
	if (!our_device(dev))
		return 0;
	add(&redirect_errs, 0, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
