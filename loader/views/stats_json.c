// SPDX-License-Identifier: GPL-2.0
/* stats --json: one object per interval, on one line, with the rates of
 * the interval (rounded to whole events per second) and the counts since
 * stats started. Every key is always there, whatever the kernel lacks, so
 * the schema stays stable; .tracepoints says which figures count.
 */
#include <math.h>
#include <stdio.h>
#include "counters.h"
#include "json.h"
#include "names.h"
#include "stats_view.h"

static void json_rate(struct json *j, const char *key, __u64 count, double dt)
{
	json_uint(j, key, (unsigned long long)llround(per_second(count, dt)));
}

/* A rate over an interval dt, or with dt 0 the count itself (totals). */
static void json_rate_or_count(struct json *j, const char *key, __u64 count, double dt)
{
	if (dt > 0)
		json_rate(j, key, count, dt);
	else
		json_uint(j, key, count);
}

/* A counter; an array as an object of its entries. */
static void json_counter(struct json *j, const char *key, const struct counter_desc *c,
			 const struct cpusteer_counters *k, double dt)
{
	__u32 i;

	if (!c->entry_name) {
		json_rate_or_count(j, key, counter_value(c, k, 0), dt);
		return;
	}
	json_object_open(j, key);
	for (i = 0; i < c->n; i++)
		json_rate_or_count(j, counter_entry_name(c, i), counter_value(c, k, i), dt);
	json_object_close(j);
}

static void json_exceptions(struct json *j, const struct stats_sample *s, double dt)
{
	int slot;

	json_object_open(j, "exceptions");
	for (slot = 0; slot < TRACE_EXCEPTION_SLOTS; slot++)
		json_rate_or_count(j, exception_slot_name(slot), s->exceptions[slot], dt);
	json_object_close(j);
}

static void json_rx(struct json *j, const struct stats_view *v, double dt)
{
	const struct stats_sample *d = &v->delta;
	struct rx_sum s = sample_rx_sum(d, v->ncpus, -1);
	const struct counter_desc *c;
	int cpu;

	json_object_open(j, "rx");
	json_rate(j, "total_pps", s.rx, dt);
	json_rate(j, "redirect_pps", s.redirect, dt);
	json_rate(j, "pass_pps", s.pass, dt);
	json_rate(j, "error_pps", s.error, dt);
	json_array_open(j, "per_cpu");
	for (cpu = 0; cpu < v->ncpus; cpu++) {
		s = sample_rx_sum(d, v->ncpus, cpu);
		json_object_open(j, NULL);
		json_uint(j, "cpu", cpu);
		json_rate(j, "pps", s.rx, dt);
		json_rate(j, "redirect_pps", s.redirect, dt);
		json_rate(j, "pass_pps", s.pass, dt);
		json_rate(j, "error_pps", s.error, dt);
		for_each_counter(c)
			if (c->json_key)
				json_counter(j, c->json_key, c, &d->rx[cpu], dt);
		json_object_close(j);
	}
	json_array_close(j);
	json_object_close(j);
}

static void json_enqueue(struct json *j, const struct stats_view *v, double dt)
{
	const struct enqueue_count *e, *t;
	int from, to, n = v->ncpus;

	/* Only pairs that carried frames since stats started: n * n
	 * entries would swamp a large machine.
	 */
	json_array_open(j, "enqueue");
	for (from = 0; from < n; from++)
		for (to = 0; to < v->ncpus; to++) {
			t = &v->total.enqueue[from * n + to];
			e = &v->delta.enqueue[from * n + to];
			if (!t->bulks)
				continue;
			json_object_open(j, NULL);
			json_uint(j, "from_cpu", from);
			json_uint(j, "to_cpu", to);
			json_rate(j, "pps", e->processed, dt);
			json_rate(j, "drops_pps", e->drops, dt);
			if (e->bulks)
				json_double(j, "avg_bulk", (double)e->processed / e->bulks);
			else
				json_null(j, "avg_bulk");
			json_object_close(j);
		}
	json_array_close(j);
}

static void json_kthread(struct json *j, const struct stats_view *v, double dt)
{
	const struct kthread_count *k;
	int cpu;

	json_array_open(j, "kthread");
	for (cpu = 0; cpu < v->ncpus; cpu++) {
		k = &v->delta.kthread[cpu];
		json_object_open(j, NULL);
		json_uint(j, "cpu", cpu);
		json_rate(j, "pps", k->processed, dt);
		json_rate(j, "drops_pps", k->drops, dt);
		json_rate(j, "sched", k->sched, dt);
		json_rate(j, "pass", k->xdp_pass, dt);
		json_rate(j, "drop", k->xdp_drop, dt);
		json_rate(j, "redirect", k->xdp_redirect, dt);
		json_object_close(j);
	}
	json_array_close(j);
}

/* The rates and the totals have keys of their own. */
static void json_remote(struct json *j, const struct cpusteer_remote_counters *r,
			bool rates, double dt)
{
	json_object_open(j, "remote");
	if (rates) {
		json_rate(j, "pass_pps", r->passed, dt);
		json_rate(j, "drop_pps", r->dropped, dt);
		json_rate(j, "redirect_pps", r->redirected, dt);
		json_rate(j, "redirect_error_pps", r->redirect_errors, dt);
	} else {
		json_uint(j, "pass", r->passed);
		json_uint(j, "drop", r->dropped);
		json_uint(j, "redirect", r->redirected);
		json_uint(j, "redirect_errors", r->redirect_errors);
	}
	json_object_close(j);
}

/* Counts since stats started, so a test can reconcile the stages exactly
 * once traffic stops.
 */
static void json_totals(struct json *j, const struct stats_view *v)
{
	const struct stats_sample *t = &v->total;
	struct kthread_count k = sample_kthread_all(t, v->ncpus);
	struct cpusteer_remote_counters r = sample_remote_all(t, v->ncpus);
	struct enqueue_count e = sample_enqueue_all(t, v->ncpus);
	const struct counter_desc *c;
	struct cpusteer_counters rx;
	struct rx_sum s;
	int cpu;

	sample_rx_all(&rx, t, v->ncpus);
	s = sample_rx_sum(t, v->ncpus, -1);
	json_object_open(j, "totals");
	json_uint(j, "rx", s.rx);
	json_uint(j, "redirect", s.redirect);
	json_uint(j, "pass", s.pass);
	json_uint(j, "error", s.error);
	for_each_counter(c)
		if (c->json_total_key)
			json_counter(j, c->json_total_key, c, &rx, 0);
	json_array_open(j, "redirect_per_target");
	for (cpu = 0; cpu < v->ncpus; cpu++) {
		json_object_open(j, NULL);
		json_uint(j, "cpu", cpu);
		json_uint(j, "packets", sample_redirected_to(t, v->ncpus, cpu));
		json_uint(j, "by_rule", t->rule_hits[cpu]);
		json_object_close(j);
	}
	json_array_close(j);
	json_object_open(j, "enqueue");
	json_uint(j, "processed", e.processed);
	json_uint(j, "drops", e.drops);
	json_uint(j, "bulks", e.bulks);
	json_object_close(j);
	json_object_open(j, "kthread");
	json_uint(j, "processed", k.processed);
	json_uint(j, "drops", k.drops);
	json_uint(j, "sched", k.sched);
	json_uint(j, "pass", k.xdp_pass);
	json_uint(j, "drop", k.xdp_drop);
	json_uint(j, "redirect", k.xdp_redirect);
	json_object_close(j);
	json_remote(j, &r, false, 0);
	json_exceptions(j, t, 0);
	json_uint(j, "redirect_errors", t->redirect_errors);
	json_object_close(j);
}

/* UTC with milliseconds, e.g. 2024-05-01T12:00:00.250Z. */
static void utc_stamp(const struct timespec *wall, char *buf, size_t len)
{
	char secs[32];
	struct tm tm;

	gmtime_r(&wall->tv_sec, &tm);
	strftime(secs, sizeof(secs), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", secs, (int)(wall->tv_nsec / 1000000));
}

void stats_print_json(const struct stats_view *v, double dt, const struct timespec *wall)
{
	struct cpusteer_remote_counters r = sample_remote_all(&v->delta, v->ncpus);
	struct cpusteer_counters rx;
	struct json j;
	char when[64];
	int cpu, tp;

	utc_stamp(wall, when, sizeof(when));
	sample_rx_all(&rx, &v->delta, v->ncpus);
	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "interface", v->ifname);
	if (v->hash)
		json_string(&j, "hash", v->hash);
	json_double(&j, "interval_s", dt);
	json_string(&j, "time", when);
	json_rx(&j, v, dt);
	json_array_open(&j, "redirect_per_target");
	for (cpu = 0; cpu < v->ncpus; cpu++) {
		json_object_open(&j, NULL);
		json_uint(&j, "cpu", cpu);
		json_rate(&j, "pps", sample_redirected_to(&v->delta, v->ncpus, cpu), dt);
		json_rate(&j, "by_rule_pps", v->delta.rule_hits[cpu], dt);
		json_object_close(&j);
	}
	json_array_close(&j);
	json_enqueue(&j, v, dt);
	json_kthread(&j, v, dt);
	json_remote(&j, &r, true, dt);
	json_exceptions(&j, &v->delta, dt);
	json_rate(&j, "redirect_errors", v->delta.redirect_errors, dt);
	json_object_open(&j, "tracepoints");
	for (tp = 0; tp < TP_COUNT; tp++)
		json_bool(&j, tracepoint_name(tp), v->tracer->attached[tp]);
	json_object_close(&j);
	json_totals(&j, v);
	json_object_close(&j);
}
