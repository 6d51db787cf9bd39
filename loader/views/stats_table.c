// SPDX-License-Identifier: GPL-2.0
/* The stats table: one block per interval, a section per stage, rates per
 * second. Rows at zero are left out unless --extended asks for them, and
 * per-CPU rows are those of the CPUs the view lists, in its order.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include "counters.h"
#include "names.h"
#include "stats_view.h"
#include "sums.h"

#define LABEL_W 20
#define COL_W 13

/* A rate rounded to a whole number, with thousands separators; a rate
 * that rounds to zero but is not zero shows as "<1", so that a rare error
 * over a long interval does not read as none.
 */
static void put_rate(FILE *f, __u64 count, double dt)
{
	double v = per_second(count, dt);
	char digits[32], out[48];
	int len, i, o = 0;

	if (v > 0 && v < 0.5) {
		fprintf(f, "%*s", COL_W, "<1");
		return;
	}
	len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)llround(v));
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	fprintf(f, "%*s", COL_W, out);
}

/* The rest of a row: each count as a rate, a column each. */
static void put_rates(FILE *f, const __u64 *counts, int n, double dt)
{
	int i;

	for (i = 0; i < n; i++)
		put_rate(f, counts[i], dt);
	fputc('\n', f);
}

__attribute__((format(printf, 2, 0))) static void put_vlabel(FILE *f, const char *fmt, va_list ap)
{
	char label[64];

	vsnprintf(label, sizeof(label), fmt, ap);
	fprintf(f, "%-*s", LABEL_W, label);
}

__attribute__((format(printf, 2, 3))) static void put_label(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_vlabel(f, fmt, ap);
	va_end(ap);
}

/* A row of a single figure. */
__attribute__((format(printf, 4, 5))) static void put_figure_row(FILE *f, __u64 count, double dt,
								  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_vlabel(f, fmt, ap);
	va_end(ap);
	put_rates(f, &count, 1, dt);
}

static void put_header(FILE *f, const char *section, const char *const *cols, int ncols)
{
	int i;

	fprintf(f, "%-*s", LABEL_W, section);
	for (i = 0; i < ncols; i++)
		fprintf(f, "%*s", COL_W, cols[i]);
	fputc('\n', f);
}

static void put_rx_row(FILE *f, const struct rx_sum *s, double dt)
{
	const __u64 counts[] = { s->rx, s->redirect, s->pass, s->error };

	put_rates(f, counts, 4, dt);
}

static void print_receive(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "pkt/s", "redirect/s", "pass/s", "error/s" };
	struct rx_sum s = sample_rx_sum(&v->delta, v->ncpus, -1);
	int i, cpu;

	put_header(f, "RECEIVE", cols, 4);
	put_label(f, "  total");
	put_rx_row(f, &s, dt);
	for_each_shown_cpu(v, i, cpu) {
		s = sample_rx_sum(&v->delta, v->ncpus, cpu);
		if (!s.rx)
			continue;
		put_label(f, "  cpu %d", cpu);
		put_rx_row(f, &s, dt);
	}
}

/* One block per counter with a title: one row per entry, and with
 * --extended one sub-row per receiving CPU.
 */
static void print_counter(FILE *f, const struct stats_view *v, const struct counter_desc *c,
			  const struct cpusteer_counters *rx, double dt)
{
	static const char *const cols[] = { "pkt/s" };
	const struct stats_sample *d = &v->delta;
	bool header = false;
	__u64 count, per;
	__u32 i;
	int j, cpu;

	for (i = 0; i < c->n; i++) {
		count = counter_value(c, rx, i);
		if (!count && !v->extended)
			continue;
		if (!header)
			put_header(f, c->title, cols, 1);
		header = true;
		put_figure_row(f, count, dt, "  %s", counter_entry_name(c, i));
		if (!v->extended)
			continue;
		for_each_shown_cpu(v, j, cpu) {
			per = counter_value(c, &d->rx[cpu], i);
			if (per)
				put_figure_row(f, per, dt, "    on cpu %d", cpu);
		}
	}
}

static void print_redirected(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "pkt/s" };
	bool header = false;
	__u64 count;
	int i, cpu;

	for_each_shown_cpu(v, i, cpu) {
		count = sample_redirected_to(&v->delta, v->ncpus, cpu);
		if (!count && !(v->extended && v->configured[cpu]))
			continue;
		if (!header)
			put_header(f, "REDIRECTED TO", cols, 1);
		header = true;
		put_figure_row(f, count, dt, "  cpu %d", cpu);
	}
}

/* Shown once a prefix rule has steered a frame: the frames rules sent
 * to each CPU rather than buckets, counted before the redirect, so those
 * that met an error there too.
 */
static void print_by_rule(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "pkt/s" };
	bool header = false;
	int i, cpu;

	for_each_shown_cpu(v, i, cpu) {
		if (!v->delta.rule_hits[cpu])
			continue;
		if (!header)
			put_header(f, "BY PREFIX RULE", cols, 1);
		header = true;
		put_figure_row(f, v->delta.rule_hits[cpu], dt, "  cpu %d", cpu);
	}
}

static void put_enqueue_row(FILE *f, const struct enqueue_count *e, double dt)
{
	put_rate(f, e->processed, dt);
	put_rate(f, e->drops, dt);
	if (e->bulks)
		fprintf(f, "%*.2f\n", COL_W, (double)e->processed / e->bulks);
	else
		fprintf(f, "%*s\n", COL_W, "-");
}

static void print_enqueue(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "pkt/s", "drop/s", "bulk-avg" };
	const struct stats_sample *d = &v->delta;
	const struct enqueue_count *pair;
	struct enqueue_count e;
	int i, j, to, from, n = v->ncpus;

	put_header(f, "ENQUEUE (cpumap)", cols, 3);
	e = sample_enqueue_all(d, n);
	put_label(f, "  total");
	put_enqueue_row(f, &e, dt);
	for_each_shown_cpu(v, i, to) {
		e = sample_enqueue_to(d, n, to);
		if (!e.bulks && !(v->extended && v->configured[to]))
			continue;
		put_label(f, "  to cpu %d", to);
		put_enqueue_row(f, &e, dt);
		if (!v->extended)
			continue;
		for_each_shown_cpu(v, j, from) {
			pair = &d->enqueue[from * n + to];
			if (!pair->bulks)
				continue;
			put_label(f, "    from cpu %d", from);
			put_enqueue_row(f, pair, dt);
		}
	}
}

static bool kthread_active(const struct kthread_count *k)
{
	return k->processed || k->drops || k->sched;
}

static void put_kthread_row(FILE *f, const struct kthread_count *k, double dt)
{
	const __u64 counts[] = { k->processed, k->drops, k->sched,
				 k->xdp_pass, k->xdp_drop, k->xdp_redirect };

	put_rates(f, counts, 6, dt);
}

static void print_kthread(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "pkt/s", "drop/s", "sched/s",
					     "xdp-pass/s", "xdp-drop/s", "xdp-redir/s" };
	const struct stats_sample *d = &v->delta;
	struct kthread_count k = sample_kthread_all(d, v->ncpus);
	int i, cpu;

	put_header(f, "KTHREAD", cols, 6);
	put_label(f, "  total");
	put_kthread_row(f, &k, dt);
	for_each_shown_cpu(v, i, cpu) {
		if (!kthread_active(&d->kthread[cpu]) &&
		    !(v->extended && v->configured[cpu]))
			continue;
		put_label(f, "  cpu %d", cpu);
		put_kthread_row(f, &d->kthread[cpu], dt);
	}
}

static bool remote_active(const struct cpusteer_remote_counters *r)
{
	return r->passed || r->dropped || r->redirected || r->redirect_errors;
}

static void put_remote_row(FILE *f, const struct cpusteer_remote_counters *r, double dt)
{
	const __u64 counts[] = { r->passed, r->dropped, r->redirected, r->redirect_errors };

	put_rates(f, counts, 4, dt);
}

static void print_remote(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "pass/s", "drop/s", "redirect/s", "redir-err/s" };
	const struct stats_sample *d = &v->delta;
	struct cpusteer_remote_counters r = sample_remote_all(d, v->ncpus);
	int i, cpu;

	put_header(f, "SECOND STAGE", cols, 4);
	put_label(f, "  total");
	put_remote_row(f, &r, dt);
	if (!v->extended)
		return;
	for_each_shown_cpu(v, i, cpu) {
		if (!remote_active(&d->remote[cpu]))
			continue;
		put_label(f, "  cpu %d", cpu);
		put_remote_row(f, &d->remote[cpu], dt);
	}
}

static void print_xdp_errors(FILE *f, const struct stats_view *v, double dt)
{
	static const char *const cols[] = { "event/s" };
	const struct stats_sample *d = &v->delta;
	int slot;

	put_header(f, "XDP ERRORS", cols, 1);
	if (v->tracer->attached[TP_XDP_EXCEPTION]) {
		put_figure_row(f, sum_u64(d->exceptions, TRACE_EXCEPTION_SLOTS), dt, "  exceptions");
		for (slot = 0; slot < TRACE_EXCEPTION_SLOTS; slot++)
			if (d->exceptions[slot] || v->extended)
				put_figure_row(f, d->exceptions[slot], dt, "    %s",
					       exception_slot_name(slot));
	}
	if (v->tracer->attached[TP_XDP_REDIRECT_ERR])
		put_figure_row(f, d->redirect_errors, dt, "  redirect errors");
}

void stats_print_table(FILE *f, const struct stats_view *v, double dt, const struct timespec *wall)
{
	const struct tracer *t = v->tracer;
	struct cpusteer_remote_counters r = sample_remote_all(&v->total, v->ncpus);
	const struct counter_desc *c;
	struct cpusteer_counters rx;
	struct tm now;

	localtime_r(&wall->tv_sec, &now);
	sample_rx_all(&rx, &v->delta, v->ncpus);
	fprintf(f, "%s  %02d:%02d:%02d  interval %.2f s\n", v->ifname_shown, now.tm_hour,
	       now.tm_min, now.tm_sec, dt);
	print_receive(f, v, dt);
	for_each_counter(c)
		if (c->title)
			print_counter(f, v, c, &rx, dt);
	print_redirected(f, v, dt);
	print_by_rule(f, v, dt);
	if (t->attached[TP_CPUMAP_ENQUEUE])
		print_enqueue(f, v, dt);
	if (t->attached[TP_CPUMAP_KTHREAD])
		print_kthread(f, v, dt);
	/* A second stage shows once it is set up or has counted anything. */
	if (v->extended || v->remote_configured || remote_active(&r))
		print_remote(f, v, dt);
	if (t->attached[TP_XDP_EXCEPTION] || t->attached[TP_XDP_REDIRECT_ERR])
		print_xdp_errors(f, v, dt);
	if (v->cpus_left_out)
		fprintf(f, "(%d more CPU%s left out, the least busy)\n", v->cpus_left_out,
			v->cpus_left_out == 1 ? "" : "s");
	fputc('\n', f);
}
