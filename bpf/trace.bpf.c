// SPDX-License-Identifier: GPL-2.0
/* Tracepoint counters for `cpusteer stats`, the exporter and the bench:
 * what happens to frames after the steering program let go of them. The
 * cpumap tracepoints report the bulk enqueue on the receiving CPU and the
 * kthread on the target CPU; the XDP error tracepoints report aborted
 * verdicts and failed redirects.
 *
 * The tracepoints fire for every cpumap and every device on the machine,
 * and these four programs serve any number of instances: each event looks
 * for the counter map of its cpumap (by id, which is global) or of its
 * device (ifindex and network namespace) in the slots the loader files
 * them in (include/cpusteer_trace.h). An event of anything else costs a
 * few array lookups that find nothing, however many instances there are.
 *
 * The loader probes the kernel's BTF and leaves a program unloaded when
 * its tracepoint is missing or has a different signature, so each program
 * here must stand alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "cpusteer_trace.h"

/* The counter maps of one instance: its owner at entry 0, its counters
 * from entry 1 (two entries here; for enqueue, one more than the possible
 * CPUs, which the loader sets). The value is given by its size: a type
 * seen only through pointers reaches BTF as a bare declaration, which
 * libbpf cannot size.
 */
#define COUNTERS(value_type)                                    \
	struct {                                                \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);         \
		__type(key, __u32);                             \
		__uint(value_size, sizeof(value_type));         \
		__uint(max_entries, 2);                         \
	}

#define SLOTS_OF(value_type)                                    \
	struct {                                                \
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);        \
		__uint(max_entries, TRACE_SLOTS);               \
		__type(key, __u32);                             \
		__array(values, COUNTERS(value_type));          \
	}

SLOTS_OF(struct enqueue_count) enqueue_of SEC(".maps");
SLOTS_OF(struct kthread_count) kthread_of SEC(".maps");
SLOTS_OF(struct device_count) device_of SEC(".maps");

/* Entry `key` of the counter map of `owner` in `slots`, or NULL when it
 * has none there.
 */
static __always_inline void *counters(void *slots, __u64 owner, __u32 key)
{
	__u32 probe, slot, zero = 0;
	__u64 *filed;
	void *map;

	for (probe = 0; probe < TRACE_PROBES; probe++) {
		slot = trace_slot(owner, probe);
		map = bpf_map_lookup_elem(slots, &slot);
		if (!map)
			continue;
		filed = bpf_map_lookup_elem(map, &zero);
		if (filed && *filed == owner)
			return bpf_map_lookup_elem(map, &key);
	}
	return NULL;
}

static __always_inline struct device_count *device_counters(const struct net_device *dev)
{
	__u64 owner = trace_device_owner(BPF_CORE_READ(dev, nd_net.net, ns.inum), dev->ifindex);

	return counters(&device_of, owner, 1);
}

SEC("tp_btf/xdp_cpumap_enqueue")
int BPF_PROG(cpusteer_enqueue, int map_id, unsigned int processed,
	     unsigned int drops, int to_cpu)
{
	struct enqueue_count *c = counters(&enqueue_of, (__u32)map_id, 1 + to_cpu);

	if (c) {
		c->processed += processed;
		c->drops += drops;
		c->bulks++;
	}
	return 0;
}

SEC("tp_btf/xdp_cpumap_kthread")
int BPF_PROG(cpusteer_kthread, int map_id, unsigned int processed,
	     unsigned int drops, int sched, struct xdp_cpumap_stats *xdp_stats)
{
	struct kthread_count *c = counters(&kthread_of, (__u32)map_id, 1);

	if (c) {
		c->processed += processed;
		c->drops += drops;
		c->sched += sched ? 1 : 0;
		c->xdp_pass += xdp_stats->pass;
		c->xdp_drop += xdp_stats->drop;
		c->xdp_redirect += xdp_stats->redirect;
	}
	return 0;
}

SEC("tp_btf/xdp_exception")
int BPF_PROG(cpusteer_exception, const struct net_device *dev,
	     const struct bpf_prog *xdp, __u32 act)
{
	struct device_count *c = device_counters(dev);

	if (c)
		c->exceptions[act <= XDP_REDIRECT ? act : XDP_REDIRECT + 1]++;
	return 0;
}

/* Only the device is read, so the older six-argument form of this
 * tracepoint (a map pointer where 6.x has a map type and id) works too.
 */
SEC("tp_btf/xdp_redirect_err")
int BPF_PROG(cpusteer_redirect_err, const struct net_device *dev)
{
	struct device_count *c = device_counters(dev);

	if (c)
		c->redirect_errors++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
