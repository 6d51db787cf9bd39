/* SPDX-License-Identifier: GPL-2.0 */
/* What `cpusteer stats` collects: samples of the steering program's
 * per-CPU counters and of the XDP tracepoints, which this module probes,
 * loads (bpf/trace.bpf.c) and attaches. Everything degrades: a tracepoint
 * the kernel lacks, or missing kernel BTF, leaves its counters at zero and
 * says why.
 */
#ifndef CPUSTEER_TRACE_H
#define CPUSTEER_TRACE_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <time.h>
#include <linux/types.h>
#include "cpusteer.h"

struct steer_instance;
struct trace;

enum tracepoint_id {
	TP_CPUMAP_ENQUEUE,
	TP_CPUMAP_KTHREAD,
	TP_XDP_EXCEPTION,
	TP_XDP_REDIRECT_ERR,
	TP_COUNT
};

/* One slot per XDP action and one for actions the kernel does not define,
 * as in bpf/trace.bpf.c; both take the numbers from the kernel's enum.
 */
#define TRACE_EXCEPTION_SLOTS (XDP_REDIRECT + 2)

struct enqueue_count {
	__u64 processed;	/* frames offered, drops included */
	__u64 drops;		/* the target's queue was full */
	__u64 bulks;		/* tracepoint hits, one per bulk flush */
};

struct kthread_count {
	__u64 processed;
	__u64 drops;		/* skb allocation failures */
	__u64 sched;
	__u64 xdp_pass;		/* verdicts of the second-stage program */
	__u64 xdp_drop;
	__u64 xdp_redirect;
};

/* Cumulative counters at one moment, every array sized by the possible
 * CPUs, `enqueue` as [from * ncpus + to]. Every counter is a __u64, so two
 * samples subtract word by word. Tracepoint counters count from attach;
 * those of tracepoints not attached stay zero.
 */
struct stats_sample {
	struct timespec mono;
	struct cpusteer_counters *rx;			/* [receiving CPU] */
	__u64 *redirected;		/* [receiving CPU * ncpus + target CPU] */
	struct cpusteer_remote_counters *remote;	/* [target CPU] */
	struct enqueue_count *enqueue;
	struct kthread_count *kthread;			/* [target CPU] */
	__u64 exceptions[TRACE_EXCEPTION_SLOTS];
	__u64 redirect_errors;
};

struct tracer {
	struct trace *skel;
	int ncpus;
	bool attached[TP_COUNT];
	/* Why a tracepoint is not attached; NULL when it is. */
	const char *why_not[TP_COUNT];
	bool no_btf;		/* no vmlinux BTF: no tp_btf at all */
};

const char *tracepoint_name(enum tracepoint_id tp);

/* Probes, loads and attaches what the kernel allows. Filters the cpumap
 * events to `cpumap_id` and the device events to `ifindex` in the caller's
 * network namespace; ifindex 0 leaves the device tracepoints out. Returns
 * 0 even when nothing could attach (see why_not), a negative errno only
 * when memory runs out.
 */
int tracer_open(struct tracer *t, __u32 cpumap_id, int ifindex);
void tracer_close(struct tracer *t);

int sample_alloc(struct stats_sample *s, int ncpus);
void sample_free(struct stats_sample *s);
void sample_copy(struct stats_sample *dst, const struct stats_sample *src, int ncpus);
/* out = a - b */
void sample_diff(struct stats_sample *out, const struct stats_sample *a,
		 const struct stats_sample *b, int ncpus);
/* Reads the steering counters per CPU (instance_read_counters() gives
 * only their sum) and the tracepoint counters.
 */
int sample_read(struct tracer *t, struct steer_instance *in, struct stats_sample *s);

#endif
