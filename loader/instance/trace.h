/* SPDX-License-Identifier: GPL-2.0 */
/* The XDP tracepoints that `cpusteer stats`, the exporter and the bench
 * count beside the steering program's counters (sample.h): this module
 * probes, loads (bpf/trace.bpf.c), attaches and reads them. One set
 * of tracepoint programs (struct trace_programs) counts for any number of
 * instances, each through a tracer of its own, so that what they cost
 * the data path does not grow with the instances. Everything degrades: a
 * tracepoint the kernel lacks, or missing kernel BTF, leaves its counters
 * at zero and says why.
 */
#ifndef CPUSTEER_TRACE_H
#define CPUSTEER_TRACE_H

#include <stdbool.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "cpusteer_trace.h"

struct trace;

enum tracepoint_id {
	TP_CPUMAP_ENQUEUE,
	TP_CPUMAP_KTHREAD,
	TP_XDP_EXCEPTION,
	TP_XDP_REDIRECT_ERR,
	TP_COUNT
};

/* The four programs, loaded and attached once. */
struct trace_programs {
	struct trace *skel;
	int ncpus;
	bool attached[TP_COUNT];
	/* Why a tracepoint is not attached; NULL when it is. */
	const char *why_not[TP_COUNT];
	bool no_btf;		/* no vmlinux BTF: no tp_btf at all */
};

/* A counter map of one instance, and the slot it is filed in. */
struct trace_filed {
	int fd;			/* -1: none */
	__u32 slot;
};

/* What the programs count for one instance: its own counter maps, filed
 * in the programs' maps for its cpumap and its device.
 */
struct tracer {
	const struct trace_programs *programs;	/* NULL: counts nothing */
	int ncpus;
	bool attached[TP_COUNT];	/* counted for this instance */
	/* Why a tracepoint is not counted for it; NULL when it is. */
	const char *why_not[TP_COUNT];
	bool no_btf;
	struct trace_filed enqueue, kthread, device;
};

const char *tracepoint_name(enum tracepoint_id tp);

/* Probes, loads and attaches what the kernel allows. Returns 0 even when
 * nothing could attach (see why_not), a negative errno only when memory
 * runs out.
 */
int trace_programs_open(struct trace_programs *p);
/* Detaches them; close their tracers first. */
void trace_programs_close(struct trace_programs *p);

/* Counts, from now on, the events of cpumap `cpumap_id` and of device
 * `ifindex` of the network namespace whose inode is `netns_ino` (ifindex
 * 0 leaves the device events out). Returns 0 even when some are not
 * counted (see why_not), a negative errno only when memory runs out.
 */
int tracer_open(struct tracer *t, const struct trace_programs *p, __u32 cpumap_id,
		__u64 netns_ino, int ifindex);
void tracer_close(struct tracer *t);

/* What the tracer counted since it opened, into arrays sized by the
 * possible CPUs: enqueue[from * ncpus + to], kthread[target CPU],
 * exceptions[TRACE_EXCEPTION_SLOTS] and *redirect_errors; zeros for what
 * it does not count.
 */
int tracer_read(const struct tracer *t, struct enqueue_count *enqueue,
		struct kthread_count *kthread, __u64 *exceptions, __u64 *redirect_errors);

/* The XDP action of an exception slot, or "other". */
const char *exception_slot_name(int slot);

#endif
