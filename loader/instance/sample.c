// SPDX-License-Identifier: GPL-2.0
/* Counter samples: taken from the instance's maps and its tracer, copied,
 * subtracted, and added up over CPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "counters.h"
#include "instance.h"
#include "log.h"
#include "rule_maps.h"
#include "sample.h"
#include "trace.h"

int sample_alloc(struct stats_sample *s, int ncpus)
{
	memset(s, 0, sizeof(*s));
	s->rx = calloc(ncpus, sizeof(*s->rx));
	s->redirected = calloc((size_t)ncpus * ncpus, sizeof(*s->redirected));
	s->rule_hits = calloc(ncpus, sizeof(*s->rule_hits));
	s->remote = calloc(ncpus, sizeof(*s->remote));
	s->enqueue = calloc((size_t)ncpus * ncpus, sizeof(*s->enqueue));
	s->kthread = calloc(ncpus, sizeof(*s->kthread));
	if (!s->rx || !s->redirected || !s->rule_hits || !s->remote || !s->enqueue || !s->kthread) {
		sample_free(s);
		return -ENOMEM;
	}
	return 0;
}

void sample_free(struct stats_sample *s)
{
	free(s->rx);
	free(s->redirected);
	free(s->rule_hits);
	free(s->remote);
	free(s->enqueue);
	free(s->kthread);
	memset(s, 0, sizeof(*s));
}

void sample_copy(struct stats_sample *dst, const struct stats_sample *src, int n)
{
	dst->mono = src->mono;
	memcpy(dst->rx, src->rx, n * sizeof(*src->rx));
	memcpy(dst->redirected, src->redirected, (size_t)n * n * sizeof(*src->redirected));
	memcpy(dst->rule_hits, src->rule_hits, n * sizeof(*src->rule_hits));
	memcpy(dst->remote, src->remote, n * sizeof(*src->remote));
	memcpy(dst->enqueue, src->enqueue, (size_t)n * n * sizeof(*src->enqueue));
	memcpy(dst->kthread, src->kthread, n * sizeof(*src->kthread));
	memcpy(dst->exceptions, src->exceptions, sizeof(src->exceptions));
	dst->redirect_errors = src->redirect_errors;
}

static void sub_words(void *out, const void *a, const void *b, size_t bytes)
{
	const __u64 *x = a, *y = b;
	__u64 *o = out;
	size_t i;

	for (i = 0; i < bytes / sizeof(__u64); i++)
		o[i] = x[i] - y[i];
}

void sample_diff(struct stats_sample *out, const struct stats_sample *a,
		 const struct stats_sample *b, int n)
{
	_Static_assert(sizeof(struct cpusteer_counters) % 8 == 0, "__u64 words");
	_Static_assert(sizeof(struct cpusteer_remote_counters) % 8 == 0, "__u64 words");
	_Static_assert(sizeof(struct enqueue_count) % 8 == 0, "__u64 words");
	_Static_assert(sizeof(struct kthread_count) % 8 == 0, "__u64 words");

	out->mono = a->mono;
	sub_words(out->rx, a->rx, b->rx, n * sizeof(*a->rx));
	sub_words(out->redirected, a->redirected, b->redirected,
		  (size_t)n * n * sizeof(*a->redirected));
	sub_words(out->rule_hits, a->rule_hits, b->rule_hits, n * sizeof(*a->rule_hits));
	sub_words(out->remote, a->remote, b->remote, n * sizeof(*a->remote));
	sub_words(out->enqueue, a->enqueue, b->enqueue, (size_t)n * n * sizeof(*a->enqueue));
	sub_words(out->kthread, a->kthread, b->kthread, n * sizeof(*a->kthread));
	sub_words(out->exceptions, a->exceptions, b->exceptions, sizeof(a->exceptions));
	out->redirect_errors = a->redirect_errors - b->redirect_errors;
}

/* Per-CPU maps are read whole: one value per possible CPU. */
int sample_read(const struct tracer *t, struct steer_instance *in, struct stats_sample *s)
{
	int err;

	clock_gettime(CLOCK_MONOTONIC, &s->mono);
	err = in ? instance_read_counters_percpu(in, s->rx, s->remote) : 0;
	if (!err && in)
		err = instance_read_redirects(in, s->redirected);
	if (!err && in)
		err = rule_maps_read_hits(in, s->rule_hits);
	if (err) {
		log_err("cannot read the steering counters: %s", strerror(-err));
		return err;
	}
	err = tracer_read(t, s->enqueue, s->kthread, s->exceptions, &s->redirect_errors);
	if (err)
		log_err("cannot read the tracepoint counters: %s", strerror(-err));
	return err;
}

/* Every counter struct is made of __u64 words (sample.h), so one loop adds
 * up any of them: *sum += the `count` structs of `size` bytes that start
 * at `first`, `stride` bytes apart.
 */
static void add_up(void *sum, const void *first, size_t size, size_t count, size_t stride)
{
	const char *p = first;
	__u64 *out = sum;
	size_t i, w;

	for (i = 0; i < count; i++, p += stride)
		for (w = 0; w < size / sizeof(__u64); w++)
			out[w] += ((const __u64 *)p)[w];
}

/* Adds what receiving CPU `c` counted to the sums of the counters'
 * groups; notes count packets already counted and add to none.
 */
static void add_cpu(struct rx_sum *sum, const struct stats_sample *s, int n, int c)
{
	__u64 *const of[] = { [COUNTER_RECEIVED] = &sum->rx, [COUNTER_REDIRECTED] = &sum->redirect,
			      [COUNTER_PASSED] = &sum->pass, [COUNTER_ERROR] = &sum->error };
	const struct counter_desc *d;
	__u32 i;

	for_each_counter(d) {
		if (d->group == COUNTER_NOTE)
			continue;
		if (!d->n)	/* the redirect slots, a row of their own */
			for (i = 0; i < (__u32)n; i++)
				*of[d->group] += s->redirected[(size_t)c * n + i];
		for (i = 0; i < d->n; i++)
			*of[d->group] += counter_value(d, &s->rx[c], i);
	}
}

struct rx_sum sample_rx_sum(const struct stats_sample *s, int n, int cpu)
{
	int first = cpu < 0 ? 0 : cpu, last = cpu < 0 ? n - 1 : cpu, c;
	struct rx_sum sum = {};

	for (c = first; c <= last; c++)
		add_cpu(&sum, s, n, c);
	return sum;
}

__u64 sample_redirected_to(const struct stats_sample *s, int n, int to)
{
	__u64 sum = 0;
	int from;

	for (from = 0; from < n; from++)
		sum += s->redirected[(size_t)from * n + to];
	return sum;
}

void sample_rx_all(struct cpusteer_counters *sum, const struct stats_sample *s, int n)
{
	memset(sum, 0, sizeof(*sum));
	add_up(sum, s->rx, sizeof(*sum), n, sizeof(*sum));
}

/* Enqueues to `to`, summed over the source CPUs. */
struct enqueue_count sample_enqueue_to(const struct stats_sample *s, int n, int to)
{
	struct enqueue_count e = {};

	add_up(&e, &s->enqueue[to], sizeof(e), n, n * sizeof(e));
	return e;
}

struct enqueue_count sample_enqueue_all(const struct stats_sample *s, int n)
{
	struct enqueue_count e = {};

	add_up(&e, s->enqueue, sizeof(e), (size_t)n * n, sizeof(e));
	return e;
}

struct kthread_count sample_kthread_all(const struct stats_sample *s, int n)
{
	struct kthread_count k = {};

	add_up(&k, s->kthread, sizeof(k), n, sizeof(k));
	return k;
}

struct cpusteer_remote_counters sample_remote_all(const struct stats_sample *s, int n)
{
	struct cpusteer_remote_counters r = {};

	add_up(&r, s->remote, sizeof(r), n, sizeof(r));
	return r;
}

__u64 sample_cpu_work(const struct stats_sample *s, int n, int cpu)
{
	const struct kthread_count *k = &s->kthread[cpu];
	const struct cpusteer_remote_counters *r = &s->remote[cpu];

	return sample_rx_sum(s, n, cpu).rx + sample_redirected_to(s, n, cpu) +
	       sample_enqueue_to(s, n, cpu).processed + k->processed + k->drops + k->sched +
	       r->passed + r->dropped + r->redirected + r->redirect_errors;
}
