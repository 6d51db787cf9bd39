/* SPDX-License-Identifier: GPL-2.0 */
/* What `cpusteer stats`, the exporter and the bench collect: samples of
 * the steering program's per-CPU counters and of the XDP tracepoints,
 * which this module probes, loads (bpf/trace.bpf.c) and attaches. One set
 * of tracepoint programs (struct trace_programs) counts for any number of
 * instances, each through a tracer of its own, so that what they cost
 * the data path does not grow with the instances. Everything degrades: a
 * tracepoint the kernel lacks, or missing kernel BTF, leaves its counters
 * at zero and says why.
 */
#ifndef CPUSTEER_TRACE_H
#define CPUSTEER_TRACE_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "cpusteer_trace.h"

struct steer_instance;
struct trace;

enum tracepoint_id {
	TP_CPUMAP_ENQUEUE,
	TP_CPUMAP_KTHREAD,
	TP_XDP_EXCEPTION,
	TP_XDP_REDIRECT_ERR,
	TP_COUNT
};

/* Cumulative counters at one moment, every array sized by the possible
 * CPUs, `enqueue` as [from * ncpus + to]. Every counter is a __u64, so two
 * samples subtract word by word. Tracepoint counters count from when the
 * instance's tracer opened; those of tracepoints not counted stay zero.
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

int sample_alloc(struct stats_sample *s, int ncpus);
void sample_free(struct stats_sample *s);
void sample_copy(struct stats_sample *dst, const struct stats_sample *src, int ncpus);
/* out = a - b */
void sample_diff(struct stats_sample *out, const struct stats_sample *a,
		 const struct stats_sample *b, int ncpus);
/* Reads the steering counters per CPU (instance_read_counters() gives
 * only their sum) and the tracepoint counters; with `in` NULL (a cpumap
 * that is not cpusteer's), the tracepoint counters only, the steering
 * ones left zero.
 */
int sample_read(const struct tracer *t, struct steer_instance *in, struct stats_sample *s);

#endif
