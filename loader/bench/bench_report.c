// SPDX-License-Identifier: GPL-2.0
/* The benchmark's report: the summary table and the JSON file, with the
 * chart (bench_chart.c) beside it. Only writing here; the figures come ready from bench_live.c
 * (runs) and bench_cases.c (medians and ratios).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_report.h"
#include "json.h"
#include "log.h"
#include "stats_math.h"
#include "sums.h"

/* ---- summary table ---- */

static double per_second(double count, const struct bench_figures *f)
{
	return f->seconds > 0 ? count / f->seconds : NAN;
}

/* "value (xratio)", or "-" for a figure that does not apply. The
 * baseline's own ratio is 1 by definition and left out.
 */
static void put_figure(FILE *f, int width, const char *fmt, double v, double ratio,
		       bool baseline)
{
	char num[32], cell[48];

	if (!isfinite(v)) {
		fprintf(f, "%*s", width, "-");
		return;
	}
	snprintf(num, sizeof(num), fmt, v);
	if (baseline || !isfinite(ratio))
		snprintf(cell, sizeof(cell), "%s", num);
	else
		snprintf(cell, sizeof(cell), "%s (x%.2f)", num, ratio);
	fprintf(f, "%*s", width, cell);
}

static void print_rates(const struct bench_result *r, FILE *f)
{
	const struct bench_case *c;
	const struct bench_figures *m, *q;
	bool base;
	int i;

	fprintf(f, "%-15s %-22s %20s %16s %7s %10s %16s %16s %10s\n", "scenario", "case",
		"rate (ratio)", "ns/pkt (ratio)", "jain", "qdrop/s", "IPI call/s", "IPI resched/s",
		"squeeze/s");
	for (i = 0; i < r->ncases; i++) {
		c = &r->cases[i];
		m = &c->med;
		q = &c->ratio;
		base = c->baseline == i;
		if (!c->nruns)
			continue;
		fprintf(f, "%-15s %-22s", bench_scenario_name(c->scenario), c->name);
		put_figure(f, 21, c->tcp ? "%.2f Gbit/s" : "%.3f Mpps", bench_headline(c, m),
			   bench_headline(c, q), base);
		put_figure(f, 17, "%.1f", m->bpf_ns, q->bpf_ns, base);
		put_figure(f, 8, "%.2f", m->jain, q->jain, true);
		put_figure(f, 11, "%.0f", per_second(m->queue_drops, m), NAN, true);
		put_figure(f, 17, "%.0f", per_second(m->ipi_call, m), q->ipi_call, base);
		put_figure(f, 17, "%.0f", per_second(m->ipi_resched, m), q->ipi_resched, base);
		put_figure(f, 11, "%.0f",
			   per_second(sum_double(m->softnet_squeeze, r->ncpus), m), NAN, true);
		fputc('\n', f);
	}
}

/* Frames of the first run, exact: sent should equal received + dropped. */
static void print_frames(const struct bench_result *r, FILE *f)
{
	const struct bench_figures *x;
	const struct bench_case *c;
	int i;

	fprintf(f, "\nframes in run 1: %-21s %14s %14s %14s  %s\n", "case", "sent", "received",
		"dropped", "sent = received + dropped");
	for (i = 0; i < r->ncases; i++) {
		c = &r->cases[i];
		if (!c->nruns)
			continue;
		x = &c->runs[0];
		fprintf(f, "  %-15s %-21s", bench_scenario_name(c->scenario), c->name);
		put_figure(f, 15, "%.0f", x->sent, NAN, true);
		put_figure(f, 15, "%.0f", x->received, NAN, true);
		put_figure(f, 15, "%.0f", x->dropped, NAN, true);
		fprintf(f, "  %s\n", !isfinite(x->sent) ? "-" :
			x->sent == x->received + x->dropped ? "yes" : "NO");
	}
}

/* Per target CPU, millions per second: what the program redirected
 * there, what its kthread took, and what that CPU's stack processed.
 */
static void print_per_cpu(const struct bench_result *r, FILE *f)
{
	const struct bench_figures *m;
	const struct bench_case *c;
	int i, cpu;

	fprintf(f, "\nper CPU, Mpps: redirected to / kthread / softnet processed, and squeeze/s\n");
	for (i = 0; i < r->ncases; i++) {
		c = &r->cases[i];
		m = &c->med;
		if (!c->nruns)
			continue;
		fprintf(f, "  %-15s %-21s", bench_scenario_name(c->scenario), c->name);
		for (cpu = 0; cpu < r->ncpus && cpu < 16; cpu++)
			fprintf(f, "  cpu%d %.3f/%.3f/%.3f %.0f", cpu,
				per_second(m->redirected[cpu], m) / 1e6,
				per_second(m->kthread[cpu], m) / 1e6,
				per_second(m->softnet_processed[cpu], m) / 1e6,
				per_second(m->softnet_squeeze[cpu], m));
		fputc('\n', f);
	}
}

static double max_of(const double *v, unsigned int n)
{
	double worst = n ? v[0] : NAN;
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] > worst)
			worst = v[i];
	return worst;
}

static void worst_median(const double *v, unsigned int n, double *worst, double *med)
{
	*worst = max_of(v, n);
	*med = n ? median(v, n) : NAN;
}

/* Median and worst of each command, and the median above the floor of
 * the same conditions: the command's own work, process start left out.
 */
static void print_control(const struct bench_result *r, FILE *f)
{
	const struct control_timings *c = r->control;
	double worst, med, floor, fworst;
	int t;

	if (c[CT_SET_IDLE].n) {
		fprintf(f, "\ncontrol plane, ms (median / worst of n; + above the floor, a cpusteer that only starts):\n");
		for (t = 0; t < CONTROL_TIMINGS; t++) {
			bool flood = t >= CT_FLOOR_FLOOD;

			worst_median(c[t].ms, c[t].n, &worst, &med);
			worst_median(c[flood ? CT_FLOOR_FLOOD : CT_FLOOR_IDLE].ms,
				     c[flood ? CT_FLOOR_FLOOD : CT_FLOOR_IDLE].n, &fworst, &floor);
			fprintf(f, "  %-14s %6.1f / %6.1f  (n=%u)", control_timing_name(t), med, worst,
				c[t].n);
			if (t != CT_FLOOR_IDLE && t != CT_FLOOR_FLOOD)
				fprintf(f, "  %+.1f", med - floor);
			fputc('\n', f);
		}
	}
}

/* "N (rcu_stall 0, soft_lockup 0, ...)", or that it was not read. */
static void put_kernel_log_counts(FILE *f, const struct kernel_log_alarms *k)
{
	int kind;

	if (!k->readable) {
		fprintf(f, "/dev/kmsg not readable, not checked");
		return;
	}
	fprintf(f, "%u (", k->matches);
	for (kind = 0; kind < KL_KINDS; kind++)
		fprintf(f, "%s%s %u", kind ? ", " : "", kernel_log_kind_name(kind),
			k->by_kind[kind]);
	fputc(')', f);
}

static void print_kernel_log(const struct bench_result *r, FILE *f)
{
	unsigned int i;

	if (r->dev)
		return;
	fprintf(f, "kernel log since the run started, lines by kind: ");
	put_kernel_log_counts(f, &r->kmsg);
	fputc('\n', f);
	for (i = 0; i < r->kmsg.matches && i < KERNEL_LOG_KEEP; i++)
		fprintf(f, "  %s\n", r->kmsg.first[i]);
}

/* threaded-napi: a column per side, its one flood's figures and the
 * control loop's timings.
 */
static void print_flood_loop(const struct bench_result *r, FILE *f)
{
	const struct bench_case *side[SC_COUNT];
	const struct flood_timings *t;
	const struct bench_figures *x;
	int i, n = 0, op;

	for (i = 0; i < r->ncases && n < SC_COUNT; i++)
		if (r->cases[i].scenario == SC_THREADED_NAPI && r->cases[i].nruns)
			side[n++] = &r->cases[i];
	if (!n)
		return;
	fprintf(f, "\nthreaded-napi: one %.3g s flood per side; control plane in a loop, ms as p99 / worst (n)\n",
		r->flood_duration);
	fprintf(f, "  %-26s", "");
	for (i = 0; i < n; i++)
		fprintf(f, "%26s", side[i]->name);
	fprintf(f, "\n  %-26s", "threaded NAPI read back");
	for (i = 0; i < n; i++)
		fprintf(f, "%26s", side[i]->threaded_seen < 0 ? "?" :
				   side[i]->threaded_seen ? "on" : "off");
	fprintf(f, "\n  %-26s", "delivered Mpps");
	for (i = 0; i < n; i++)
		put_figure(f, 26, "%.3f", side[i]->runs[0].mpps, NAN, true);
	fprintf(f, "\n  %-26s", "frames sent / received");
	for (i = 0; i < n; i++) {
		char cell[48];

		x = &side[i]->runs[0];
		snprintf(cell, sizeof(cell), "%.0f / %.0f", x->sent, x->received);
		fprintf(f, "%26s", cell);
	}
	fprintf(f, "\n  %-26s", "dropped: receiving veth");
	for (i = 0; i < n; i++)
		put_figure(f, 26, "%.0f", side[i]->runs[0].dropped, NAN, true);
	fprintf(f, "\n  %-26s", "dropped: cpumap queue full");
	for (i = 0; i < n; i++)
		put_figure(f, 26, "%.0f", side[i]->runs[0].queue_drops, NAN, true);
	fprintf(f, "\n  %-26s", "dropped: softnet backlog");
	for (i = 0; i < n; i++)
		put_figure(f, 26, "%.0f", sum_double(side[i]->runs[0].softnet_dropped, r->ncpus),
			   NAN, true);
	for (op = 0; op < FLOOD_OPS; op++) {
		fprintf(f, "\n  %-26s", flood_op_name(op));
		for (i = 0; i < n; i++) {
			char cell[48];

			t = &side[i]->ops[op];
			snprintf(cell, sizeof(cell), "%.1f / %.1f (%u)", percentile(t->ms, t->n, 99),
				 max_of(t->ms, t->n), t->n);
			fprintf(f, "%26s", cell);
		}
	}
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		fprintf(f, "  kernel log, %s: ", side[i]->name);
		put_kernel_log_counts(f, &side[i]->kmsg);
		fputc('\n', f);
	}
}

/* What balance moved over the runs of a case: the median of the buckets
 * each run moved, and the most any one step moved, out of the table's
 * buckets (each holds about 1/buckets of the flows).
 */
struct moves_summary {
	double moved;
	__u32 most, buckets;
};

static void summarize_moves(const struct bench_case *c, struct moves_summary *m)
{
	double moved[BENCH_MAX_RUNS];
	unsigned int k;

	memset(m, 0, sizeof(*m));
	for (k = 0; k < c->nruns; k++) {
		moved[k] = c->tallies[k].moved;
		if (c->tallies[k].most > m->most)
			m->most = c->tallies[k].most;
		if (c->tallies[k].buckets)
			m->buckets = c->tallies[k].buckets;
	}
	m->moved = c->nruns ? median(moved, c->nruns) : NAN;
}

static double percent_of(double part, __u32 whole)
{
	return whole ? 100.0 * part / whole : NAN;
}

static bool has_scenario(const struct bench_result *r, enum bench_scenario sc)
{
	int i;

	for (i = 0; i < r->ncases; i++)
		if (r->cases[i].scenario == sc)
			return true;
	return false;
}

/* peer: what the other column compares with (cpusteer's steering against
 * xdp-bench's l4-hash), or NULL.
 */
static const struct bench_case *peer_compared(const struct bench_result *r)
{
	int i;

	for (i = 0; i < r->ncases; i++)
		if (r->cases[i].scenario == SC_PEER && r->cases[i].compare_to >= 0)
			return &r->cases[r->cases[i].compare_to];
	return NULL;
}

/* peer: each program's delivered rate with its ratio to its own no-touch
 * mode, cpusteer's steering also against xdp-bench's l4-hash; what the
 * device counted in the first run beside what xdp-bench counted itself
 * (on the test bed they agree); and each mode that failed, with why.
 */
static void print_peer(const struct bench_result *r, FILE *f)
{
	const struct bench_case *c, *other = peer_compared(r);
	char vs[48];
	int i;

	if (!has_scenario(r, SC_PEER))
		return;
	snprintf(vs, sizeof(vs), "vs %s", other ? other->name : "-");
	if (r->xdp_bench)
		fprintf(f, "\npeer: %s (%s)\n", r->xdp_bench, r->xdp_bench_version);
	else
		fprintf(f, "\npeer: xdp-bench is not installed\n");
	fprintf(f, "  %-22s%22s%22s%20s%20s\n", "case", "delivered (ratio)", vs,
		"received in run 1", "xdp-bench counted");
	for (i = 0; i < r->ncases; i++) {
		c = &r->cases[i];
		if (c->scenario != SC_PEER || (!c->nruns && !c->failed[0]))
			continue;
		fprintf(f, "  %-22s", c->name);
		if (c->nruns) {
			put_figure(f, 22, "%.3f Mpps", c->med.delivered_mpps, c->ratio.delivered_mpps,
				   c->baseline == i);
			if (c->compare_to >= 0)
				put_figure(f, 22, "x%.2f", c->compare_ratio, NAN, true);
			else
				fprintf(f, "%22s", "");
			put_figure(f, 20, "%.0f", c->runs[0].received, NAN, true);
			put_figure(f, 20, "%.0f", c->runs[0].peer_counted, NAN, true);
			fputc('\n', f);
		}
		if (c->failed[0])
			fprintf(f, "%s--program-mode %s failed: %s\n", c->nruns ? "  " : " ",
				c->peer_mode, c->failed);
	}
}

/* skewed: the fairness and the rate of each side, with the ratio of
 * balance to the static table, and what balance moved.
 */
static void print_skewed(const struct bench_result *r, FILE *f)
{
	const struct bench_case *c;
	struct moves_summary m;
	bool shown = false;
	int i;

	for (i = 0; i < r->ncases; i++) {
		c = &r->cases[i];
		if (c->scenario != SC_SKEWED || !c->nruns)
			continue;
		if (!shown)
			fprintf(f, "\nskewed: %u of %u flows carry %u%% of the frames; key %s puts them on CPU %u\n",
				c->elephants, c->flows, c->elephant_share, r->skew.hex, r->skew.cpu);
		shown = true;
		fprintf(f, "  %-17s jain", c->name);
		put_figure(f, 15, "%.3f", c->med.jain, c->ratio.jain, c->baseline == i);
		put_figure(f, 22, "%.3f Mpps", c->med.mpps, c->ratio.mpps, c->baseline == i);
		if (c->balance) {
			summarize_moves(c, &m);
			fprintf(f, "  moved %.0f of %u buckets (%.2f%%), at most %u in one step (%.2f%%)",
				m.moved, m.buckets, percent_of(m.moved, m.buckets), m.most,
				percent_of(m.most, m.buckets));
		}
		fputc('\n', f);
	}
}

void bench_print_summary(const struct bench_result *r, FILE *f)
{
	fprintf(f, "\nsummary: median of %u run%s; (xR) = ratio to the scenario's baseline, taken run by run\n",
		r->runs, r->runs == 1 ? "" : "s");
	if (!r->dev)
		fprintf(f, "baselines: no-touch floor for steering, --remote drop for pass, RPS for cpumap, no XDP for steered TCP, the default multilinear hash for --hash nic, the static table for balance\n");
	if (has_scenario(r, SC_PEER))
		fprintf(f, "peer: its rates are Mpps delivered to the target CPUs; baselines: xdp-bench's no-touch for xdp-bench, cpusteer's for cpusteer\n");
	fputc('\n', f);
	print_rates(r, f);
	print_frames(r, f);
	print_per_cpu(r, f);
	print_control(r, f);
	print_peer(r, f);
	print_skewed(r, f);
	print_flood_loop(r, f);
	print_kernel_log(r, f);
}

/* ---- JSON ---- */

/* Frame counts are exact integers; %g would round them. */
static void json_count(struct json *j, const char *key, double v)
{
	if (isfinite(v))
		json_uint(j, key, (unsigned long long)llround(v));
	else
		json_null(j, key);
}

static void json_per_cpu(struct json *j, const struct bench_figures *f, int ncpus, bool counts)
{
	void (*put)(struct json *, const char *, double) = counts ? json_count : json_double;
	int cpu;

	json_array_open(j, "per_cpu");
	for (cpu = 0; cpu < ncpus; cpu++) {
		json_object_open(j, NULL);
		json_uint(j, "cpu", cpu);
		put(j, "redirected", f->redirected[cpu]);
		put(j, "kthread_processed", f->kthread[cpu]);
		put(j, "softnet_processed", f->softnet_processed[cpu]);
		put(j, "softnet_dropped", f->softnet_dropped[cpu]);
		put(j, "softnet_time_squeeze", f->softnet_squeeze[cpu]);
		json_object_close(j);
	}
	json_array_close(j);
}

/* One set of figures. `counts` says whether they are counts (a run, or
 * a median of runs) or ratios, which are not rounded.
 */
static void json_figures(struct json *j, const char *key, const struct bench_figures *f,
			 int ncpus, bool counts)
{
	void (*put)(struct json *, const char *, double) = counts ? json_count : json_double;

	json_object_open(j, key);
	json_double(j, "seconds", f->seconds);
	put(j, "frames_sent", f->sent);
	put(j, "frames_received", f->received);
	put(j, "frames_dropped", f->dropped);
	json_double(j, "mpps", f->mpps);
	put(j, "frames_delivered", f->delivered);
	json_double(j, "delivered_mpps", f->delivered_mpps);
	put(j, "xdp_bench_counted", f->peer_counted);
	json_double(j, "gbps", f->gbps);
	put(j, "queue_full_drops", f->queue_drops);
	json_double(j, "jain_index", f->jain);
	json_double(j, "bpf_ns_per_packet", f->bpf_ns);
	put(j, "ipi_function_call", f->ipi_call);
	put(j, "ipi_reschedule", f->ipi_resched);
	json_per_cpu(j, f, ncpus, counts);
	json_object_close(j);
}

static void json_timings(struct json *j, const char *key, const double *v, unsigned int n)
{
	double worst, med;
	unsigned int i;

	worst_median(v, n, &worst, &med);
	json_object_open(j, key);
	json_uint(j, "count", n);
	json_double(j, "median", med);
	json_double(j, "p99", percentile(v, n, 99));
	json_double(j, "worst", worst);
	json_array_open(j, "samples");
	for (i = 0; i < n; i++)
		json_double(j, NULL, v[i]);
	json_array_close(j);
	json_object_close(j);
}

static void json_kernel_log(struct json *j, const struct kernel_log_alarms *k, bool checked)
{
	unsigned int i;

	json_object_open(j, "kernel_log");
	json_bool(j, "checked", k->readable && checked);
	json_uint(j, "matches", k->matches);
	json_object_open(j, "by_kind");
	for (i = 0; i < KL_KINDS; i++)
		json_uint(j, kernel_log_kind_name(i), k->by_kind[i]);
	json_object_close(j);
	json_array_open(j, "first_lines");
	for (i = 0; i < k->matches && i < KERNEL_LOG_KEEP; i++)
		json_string(j, NULL, k->first[i]);
	json_array_close(j);
	json_object_close(j);
}

/* threaded-napi: the side, where its frames went, the loop's timings and
 * the kernel log of that side alone.
 */
static void json_flood_loop(struct json *j, const struct bench_result *r,
			    const struct bench_case *c)
{
	const struct bench_figures *x = &c->runs[0];
	int op;

	json_bool(j, "threaded_napi", c->threaded == 1);
	if (c->threaded_seen < 0)
		json_null(j, "threaded_napi_seen");
	else
		json_bool(j, "threaded_napi_seen", c->threaded_seen);
	json_double(j, "flood_s", r->flood_duration);
	json_object_open(j, "drops");
	json_count(j, "receiving_veth", x->dropped);
	json_count(j, "cpumap_queue_full", x->queue_drops);
	json_count(j, "softnet_backlog", sum_double(x->softnet_dropped, r->ncpus));
	json_object_close(j);
	json_object_open(j, "operations_ms");
	for (op = 0; op < FLOOD_OPS; op++)
		json_timings(j, flood_op_name(op), c->ops[op].ms, c->ops[op].n);
	json_object_close(j);
	json_kernel_log(j, &c->kmsg, true);
}

/* skewed: the flow mix and the key; with balance, what it moved. */
static void json_skew(struct json *j, const struct bench_result *r, const struct bench_case *c)
{
	struct moves_summary m;
	unsigned int k;

	json_uint(j, "elephants", c->elephants);
	json_uint(j, "elephant_share", c->elephant_share);
	json_string(j, "hash_key", r->skew.hex);
	json_uint(j, "elephants_cpu", r->skew.cpu);
	if (!c->balance) {
		json_null(j, "balance");
		return;
	}
	summarize_moves(c, &m);
	json_object_open(j, "balance");
	json_double(j, "interval_s", SKEW_INTERVAL);
	json_double(j, "settle_s", SKEW_SETTLE_S);
	json_uint(j, "buckets", m.buckets);
	json_double(j, "buckets_moved", m.moved);
	json_uint(j, "most_in_one_step", m.most);
	json_double(j, "most_in_one_step_pct", percent_of(m.most, m.buckets));
	json_array_open(j, "runs");
	for (k = 0; k < c->nruns; k++) {
		json_object_open(j, NULL);
		json_uint(j, "steps", c->tallies[k].steps);
		json_uint(j, "buckets_moved", c->tallies[k].moved);
		json_uint(j, "most_in_one_step", c->tallies[k].most);
		json_object_close(j);
	}
	json_array_close(j);
	json_object_close(j);
}

/* peer: the program and its mode, why it failed, and the comparison with
 * another case.
 */
static void json_peer(struct json *j, const struct bench_result *r, const struct bench_case *c)
{
	json_string(j, "program", c->peer_mode ? "xdp-bench" : "cpusteer");
	if (c->peer_mode)
		json_string(j, "xdp_bench_mode", c->peer_mode);
	if (c->failed[0])
		json_string(j, "failed", c->failed);
	else
		json_null(j, "failed");
	if (c->compare_to < 0)
		return;
	json_string(j, "compared_with", r->cases[c->compare_to].name);
	json_double(j, "delivered_ratio_to_compared", c->compare_ratio);
}

static void json_case(struct json *j, const struct bench_result *r, int i)
{
	const struct bench_case *c = &r->cases[i];
	unsigned int k;

	json_object_open(j, NULL);
	json_string(j, "name", c->name);
	json_string(j, "description", c->what);
	if (c->baseline == i)
		json_null(j, "baseline");
	else
		json_string(j, "baseline", r->cases[c->baseline].name);
	json_uint(j, "flows", c->flows);
	json_uint(j, "runs_done", c->nruns);
	json_figures(j, "median", &c->med, r->ncpus, true);
	if (c->baseline == i)
		json_null(j, "ratio_to_baseline");
	else
		json_figures(j, "ratio_to_baseline", &c->ratio, r->ncpus, false);
	json_array_open(j, "runs");
	for (k = 0; k < c->nruns; k++)
		json_figures(j, NULL, &c->runs[k], r->ncpus, true);
	json_array_close(j);
	if (c->scenario == SC_PEER)
		json_peer(j, r, c);
	if (c->scenario == SC_THREADED_NAPI)
		json_flood_loop(j, r, c);
	if (c->elephants)
		json_skew(j, r, c);
	json_object_close(j);
}

static void json_scenarios(struct json *j, const struct bench_result *r)
{
	int sc, i;
	bool open;

	json_array_open(j, "scenarios");
	for (sc = 0; sc < SC_COUNT; sc++) {
		open = false;
		for (i = 0; i < r->ncases; i++) {
			if (r->cases[i].scenario != (enum bench_scenario)sc)
				continue;
			if (!open) {
				json_object_open(j, NULL);
				json_string(j, "name", bench_scenario_name(sc));
				json_string(j, "unit", r->cases[i].tcp ? "Gbit/s" : "Mpps");
				json_array_open(j, "cases");
				open = true;
			}
			json_case(j, r, i);
		}
		if (open) {
			json_array_close(j);
			json_object_close(j);
		}
	}
	json_array_close(j);
}

int bench_write_json(const struct bench_result *r, const char *path)
{
	struct json j;
	FILE *f = fopen(path, "w");
	int t;

	if (!f) {
		log_err("cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	json_init(&j, f);
	json_object_open(&j, NULL);
	json_uint(&j, "ncpus", r->ncpus);
	json_double(&j, "duration_s", r->duration);
	json_uint(&j, "runs", r->runs);
	json_uint(&j, "flows", r->flows);
	json_uint(&j, "frame_size", r->frame_size);
	json_int(&j, "generator_cpu", r->dev ? -1 : r->gen_cpu);
	if (r->transmit != TRAFFICGEN_TX_AUTO)
		json_string(&j, "generator_transmit",
			    name_of(trafficgen_transmit_names, r->transmit, "?"));
	else
		json_null(&j, "generator_transmit");
	if (r->dev)
		json_string(&j, "device", r->dev);
	else
		json_null(&j, "device");
	json_string(&j, "note", "generator, receiver NAPI and cpumap kthreads share the CPUs; "
				"ratios are medians of run-by-run ratios to the baseline");
	if (r->xdp_bench) {
		json_string(&j, "xdp_bench", r->xdp_bench);
		json_string(&j, "xdp_bench_version", r->xdp_bench_version);
	}
	json_scenarios(&j, r);
	json_object_open(&j, "control_plane_ms");
	for (t = 0; t < CONTROL_TIMINGS; t++)
		json_timings(&j, control_timing_name(t), r->control[t].ms, r->control[t].n);
	json_object_close(&j);
	json_kernel_log(&j, &r->kmsg, !r->dev);
	json_object_close(&j);
	if (fclose(f)) {
		log_err("cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

int bench_write_files(const struct bench_result *r, const char *path)
{
	size_t len = strlen(path);
	char *svg = malloc(len + 5);
	int err;

	if (!svg)
		return -ENOMEM;
	strcpy(svg, path);
	if (len > 5 && !strcmp(path + len - 5, ".json"))
		svg[len - 5] = '\0';
	strcat(svg, ".svg");
	err = bench_write_json(r, path);
	if (!err)
		err = bench_write_svg(r, svg);
	if (!err)
		printf("wrote %s and %s\n", path, svg);
	free(svg);
	return err;
}
