/* SPDX-License-Identifier: GPL-2.0 */
/* Samples of what `cpusteer stats`, the exporter and the bench count: the
 * steering program's per-CPU counters and the tracepoint counters of the
 * instance's tracer (trace.h), read together at one moment; the
 * difference of two samples; and the sums over CPUs that every output of
 * them shows.
 */
#ifndef CPUSTEER_SAMPLE_H
#define CPUSTEER_SAMPLE_H

#include <time.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "cpusteer_trace.h"

struct steer_instance;
struct tracer;

/* Cumulative counters at one moment, every array sized by the possible
 * CPUs, `enqueue` as [from * ncpus + to]. Every counter is a __u64, so two
 * samples subtract word by word. Tracepoint counters count from when the
 * instance's tracer opened; those of tracepoints not counted stay zero.
 */
struct stats_sample {
	struct timespec mono;
	struct cpusteer_counters *rx;			/* [receiving CPU] */
	__u64 *redirected;		/* [receiving CPU * ncpus + target CPU] */
	__u64 *rule_hits;		/* [target CPU]: frames a prefix rule sent
					 * there, summed over receiving CPUs */
	struct cpusteer_remote_counters *remote;	/* [target CPU] */
	struct enqueue_count *enqueue;
	struct kthread_count *kthread;			/* [target CPU] */
	__u64 exceptions[TRACE_EXCEPTION_SLOTS];
	__u64 redirect_errors;
};

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

/* What the steering counters add up to, by their groups (counters.h). */
struct rx_sum {
	__u64 rx, redirect, pass, error;
};

/* Of receiving CPU `cpu`, or of all of them with cpu -1. */
struct rx_sum sample_rx_sum(const struct stats_sample *s, int n, int cpu);

/* Sums over the CPUs of a sample with `n` possible CPUs. */
void sample_rx_all(struct cpusteer_counters *sum, const struct stats_sample *s, int n);
__u64 sample_redirected_to(const struct stats_sample *s, int n, int to);
struct enqueue_count sample_enqueue_to(const struct stats_sample *s, int n, int to);
struct enqueue_count sample_enqueue_all(const struct stats_sample *s, int n);
struct kthread_count sample_kthread_all(const struct stats_sample *s, int n);
struct cpusteer_remote_counters sample_remote_all(const struct stats_sample *s, int n);
/* How busy CPU `cpu` was: the frames it received, those steered to it,
 * queued for it and taken by its kthread, and its kthread's wake-ups and
 * second-stage verdicts, added up. Only for ranking CPUs: the figures
 * overlap, a frame counts at every stage it passed.
 */
__u64 sample_cpu_work(const struct stats_sample *s, int n, int cpu);

#endif
