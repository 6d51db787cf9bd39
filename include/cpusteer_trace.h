/* SPDX-License-Identifier: GPL-2.0 */
/* The contract between the tracepoint programs (bpf/trace.bpf.c) and the
 * loader (loader/instance/trace.c): the counters they keep for each
 * instance, and how they find an instance's. One set of programs serves
 * every instance: each instance has counter maps of its own, which the
 * loader files in the programs' maps of maps, for the cpumap events under
 * its cpumap's id and for the XDP error events under its device. Plain
 * __u64 counters, so that two samples subtract word by word.
 *
 * An event finds its instance in a few array lookups rather than a hash
 * lookup, which costs more than the counting itself: the owner (a cpumap
 * id, or a device) names TRACE_PROBES neighbouring slots of TRACE_SLOTS,
 * and the loader files the instance's map in the first free one. Entry 0
 * of every counter map holds its owner (in the first word of each CPU's
 * copy), which the program compares before it counts: a slot holds one
 * map at a time, so an event never counts in another owner's map. The
 * counters start at entry 1.
 */
#ifndef CPUSTEER_TRACE_COUNTS_H
#define CPUSTEER_TRACE_COUNTS_H

#ifdef __BPF__
#include "vmlinux.h"
#else
#include <linux/bpf.h>
#include <linux/types.h>
#endif

#define TRACE_SLOTS 1024	/* a power of two */
#define TRACE_PROBES 4

/* Probe `probe` of `owner`: Fibonacci hashing, which spreads the nearly
 * consecutive ids of cpumaps loaded one after another.
 */
static inline __u32 trace_slot(__u64 owner, __u32 probe)
{
	return ((__u32)((owner * 0x9e3779b97f4a7c15ULL) >> 32) + probe) & (TRACE_SLOTS - 1);
}

/* The owner of an instance's XDP error counters: its device. An ifindex
 * is unique only inside its network namespace, hence the namespace's
 * inode beside it. Never 0, as no cpumap id is: 0 is no owner.
 */
static inline __u64 trace_device_owner(__u32 netns_ino, __u32 ifindex)
{
	return (__u64)netns_ino << 32 | ifindex;
}

/* One slot per XDP action and one for actions the kernel does not
 * define; both sides take the numbers from the kernel's enum.
 */
#define TRACE_EXCEPTION_SLOTS (XDP_REDIRECT + 2)

/* Per target CPU (entry 1 + CPU), in the per-CPU copy of the enqueuing
 * CPU: the tracepoint runs there, so every CPU writes only its own copy.
 */
struct enqueue_count {
	__u64 processed;	/* frames offered, drops included */
	__u64 drops;		/* the target's queue was full */
	__u64 bulks;		/* tracepoint hits, one per bulk flush */
};

/* Entry 1, in the per-CPU copy of the target CPU, where its kthread
 * runs.
 */
struct kthread_count {
	__u64 processed;
	__u64 drops;		/* skb allocation failures */
	__u64 sched;		/* the kthread slept and was woken */
	__u64 xdp_pass;		/* verdicts of the second-stage program */
	__u64 xdp_drop;
	__u64 xdp_redirect;
};

/* Entry 1, per CPU. */
struct device_count {
	__u64 exceptions[TRACE_EXCEPTION_SLOTS];	/* by XDP action */
	__u64 redirect_errors;
};

#endif
