// SPDX-License-Identifier: GPL-2.0
/* cpusteer stats: live counters of a running instance, one block per
 * interval, in the manner of xdp-bench. The steering program's own
 * per-CPU counters say what it decided; the cpumap and XDP tracepoints
 * (loader/trace.c) say what became of the frames after it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "instance.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "options.h"
#include "trace.h"
#include "steer.skel.h"

static const char stats_usage[] =
	"usage: cpusteer stats IFACE [--interval S] [--count N] [--extended] [--json]\n"
	"Shows, once per interval, what becomes of the packets arriving on IFACE:\n"
	"  RECEIVE        packets the steering program saw, per receiving CPU, and\n"
	"                 its verdicts: redirected, passed to the local stack, errors\n"
	"  PASSED, ERRORS why packets were passed instead of steered\n"
	"  REDIRECTED TO  packets steered to each target CPU\n"
	"  ENQUEUE        cpumap bulk enqueues per target CPU; drops mean the\n"
	"                 target's queue was full, bulk-avg is frames per flush (max 8)\n"
	"  KTHREAD        the cpumap kthread of each target CPU: frames taken,\n"
	"                 skb allocation drops, wake-ups, second-stage verdicts\n"
	"  SECOND STAGE   the cpumap program's own counters (load --remote)\n"
	"  XDP ERRORS     aborted verdicts and failed redirects on IFACE\n"
	"Figures are per second. Tracepoints the kernel lacks are left out with a\n"
	"note (in --json their figures are 0 and .tracepoints says which); without\n"
	"kernel BTF only the steering program's counters are shown.\n"
	"\n"
	"  --interval S   seconds between blocks, 1-3600 (default 1)\n"
	"  --count N      stop after N blocks (default: until Ctrl-C or SIGTERM)\n"
	"  --extended     every reason, target and action row even at zero, and\n"
	"                 per-CPU breakdowns (pass reasons and errors per receiving\n"
	"                 CPU, enqueue per source CPU, second stage per CPU)\n"
	"  --json         one JSON object per interval, one line each, with rates\n"
	"                 and the cumulative totals since stats started\n"
	"  -v, --verbose  show libbpf's messages\n"
	"  -h, --help     this text\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct stats_ctx {
	const char *ifname;
	struct steer_instance in;
	struct tracer tracer;
	int ncpus;
	int ntargets;		/* CPUs a cpumap entry can name */
	bool extended;
	bool json;
	__u32 interval;
	bool *configured;	/* [cpu]: a target of the instance's set */
	bool remote_configured;	/* the cpumap entries carry a program */
	struct stats_sample base, prev, cur, delta, total;
};

/* The target CPUs the instance is set up for, read each interval since
 * `cpusteer set` may change them underneath.
 */
static void read_targets(struct stats_ctx *c)
{
	struct cpusteer_instance_state st;
	struct cpusteer_config cfg;
	__u32 i;

	memset(c->configured, 0, c->ncpus * sizeof(*c->configured));
	if (!instance_read_state(&c->in, &st)) {
		for (i = 0; i < st.ncpus && i < CPUSTEER_MAX_CPUS; i++)
			if (st.cpus[i] < (__u32)c->ncpus)
				c->configured[st.cpus[i]] = true;
		c->remote_configured = st.remote != REMOTE_NONE;
	}
	if (!instance_read_config(&c->in, &cfg) && cfg.non_ip_cpu < (__u32)c->ncpus)
		c->configured[cfg.non_ip_cpu] = true;
}

/* What one CPU's steering counters add up to. */
struct rx_sum {
	__u64 rx, redirect, pass, error;
};

static struct rx_sum rx_sum_of(const struct cpusteer_counters *k)
{
	struct rx_sum s = { .rx = k->rx_packets };
	int i;

	for (i = 0; i < CPUSTEER_MAX_CPUS; i++)
		s.redirect += k->redirected[i];
	for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
		s.pass += k->passed[i];
	for (i = 0; i < CPUSTEER_ERRORS; i++)
		s.error += k->errors[i];
	return s;
}

static struct rx_sum rx_sum_all(const struct stats_sample *s, int n)
{
	struct rx_sum t = {}, one;
	int cpu;

	for (cpu = 0; cpu < n; cpu++) {
		one = rx_sum_of(&s->rx[cpu]);
		t.rx += one.rx;
		t.redirect += one.redirect;
		t.pass += one.pass;
		t.error += one.error;
	}
	return t;
}

static __u64 redirected_to(const struct stats_sample *s, int n, int target)
{
	__u64 v = 0;
	int cpu;

	for (cpu = 0; cpu < n; cpu++)
		v += s->rx[cpu].redirected[target];
	return v;
}

static __u64 passed_for(const struct stats_sample *s, int n, int reason)
{
	__u64 v = 0;
	int cpu;

	for (cpu = 0; cpu < n; cpu++)
		v += s->rx[cpu].passed[reason];
	return v;
}

static __u64 errors_for(const struct stats_sample *s, int n, int err)
{
	__u64 v = 0;
	int cpu;

	for (cpu = 0; cpu < n; cpu++)
		v += s->rx[cpu].errors[err];
	return v;
}

/* Enqueues to `to`, summed over the source CPUs. */
static struct enqueue_count enqueue_to(const struct stats_sample *s, int n, int to)
{
	struct enqueue_count e = {};
	int from;

	for (from = 0; from < n; from++) {
		e.processed += s->enqueue[from * n + to].processed;
		e.drops += s->enqueue[from * n + to].drops;
		e.bulks += s->enqueue[from * n + to].bulks;
	}
	return e;
}

static struct enqueue_count enqueue_all(const struct stats_sample *s, int n)
{
	struct enqueue_count e = {};
	int i;

	for (i = 0; i < n * n; i++) {
		e.processed += s->enqueue[i].processed;
		e.drops += s->enqueue[i].drops;
		e.bulks += s->enqueue[i].bulks;
	}
	return e;
}

static struct kthread_count kthread_all(const struct stats_sample *s, int n)
{
	struct kthread_count k = {};
	int cpu;

	for (cpu = 0; cpu < n; cpu++) {
		k.processed += s->kthread[cpu].processed;
		k.drops += s->kthread[cpu].drops;
		k.sched += s->kthread[cpu].sched;
		k.xdp_pass += s->kthread[cpu].xdp_pass;
		k.xdp_drop += s->kthread[cpu].xdp_drop;
		k.xdp_redirect += s->kthread[cpu].xdp_redirect;
	}
	return k;
}

static struct cpusteer_remote_counters remote_all(const struct stats_sample *s, int n)
{
	struct cpusteer_remote_counters r = {};
	int cpu;

	for (cpu = 0; cpu < n; cpu++) {
		r.passed += s->remote[cpu].passed;
		r.dropped += s->remote[cpu].dropped;
		r.redirected += s->remote[cpu].redirected;
		r.redirect_errors += s->remote[cpu].redirect_errors;
	}
	return r;
}

static __u64 exceptions_all(const struct stats_sample *s)
{
	__u64 v = 0;
	int i;

	for (i = 0; i < TRACE_EXCEPTION_SLOTS; i++)
		v += s->exceptions[i];
	return v;
}

static const char *exception_name(int slot)
{
	return slot <= XDP_REDIRECT ? xdp_verdict_name(slot) : "other";
}

static bool kthread_active(const struct kthread_count *k)
{
	return k->processed || k->drops || k->sched;
}

/* ---- the table ---- */

#define LABEL_W 20
#define COL_W 13

static double rate(__u64 count, double dt)
{
	return dt > 0 ? count / dt : 0;
}

/* A rate rounded to a whole number, with thousands separators; a rate
 * that rounds to zero but is not zero shows as "<1", so that a rare error
 * over a long interval does not read as none.
 */
static void put_rate(double v)
{
	char digits[32], out[48];
	int len, i, o = 0;

	if (v > 0 && v < 0.5) {
		printf("%*s", COL_W, "<1");
		return;
	}
	len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)llround(v));
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	printf("%*s", COL_W, out);
}

__attribute__((format(printf, 1, 2))) static void put_label(const char *fmt, ...)
{
	char label[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(label, sizeof(label), fmt, ap);
	va_end(ap);
	printf("%-*s", LABEL_W, label);
}

static void put_header(const char *section, const char *const *cols, int ncols)
{
	int i;

	printf("%-*s", LABEL_W, section);
	for (i = 0; i < ncols; i++)
		printf("%*s", COL_W, cols[i]);
	putchar('\n');
}

static void put_rx_row(const struct rx_sum *s, double dt)
{
	put_rate(rate(s->rx, dt));
	put_rate(rate(s->redirect, dt));
	put_rate(rate(s->pass, dt));
	put_rate(rate(s->error, dt));
	putchar('\n');
}

static void print_receive(const struct stats_ctx *c, double dt)
{
	static const char *const cols[] = { "pkt/s", "redirect/s", "pass/s", "error/s" };
	const struct stats_sample *d = &c->delta;
	struct rx_sum s = rx_sum_all(d, c->ncpus);
	int cpu;

	put_header("RECEIVE", cols, 4);
	put_label("  total");
	put_rx_row(&s, dt);
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		s = rx_sum_of(&d->rx[cpu]);
		if (!s.rx)
			continue;
		put_label("  cpu %d", cpu);
		put_rx_row(&s, dt);
	}
}

/* PASSED and ERRORS share a shape: one row per reason, and with
 * --extended one sub-row per receiving CPU.
 */
static void print_reasons(const struct stats_ctx *c, double dt, bool errors)
{
	static const char *const cols[] = { "pkt/s" };
	const struct stats_sample *d = &c->delta;
	int i, cpu, n = errors ? CPUSTEER_ERRORS : CPUSTEER_PASS_REASONS;
	bool header = false;
	__u64 v, per;

	for (i = 0; i < n; i++) {
		v = errors ? errors_for(d, c->ncpus, i) : passed_for(d, c->ncpus, i);
		if (!v && !c->extended)
			continue;
		if (!header)
			put_header(errors ? "ERRORS (passed)" : "PASSED", cols, 1);
		header = true;
		put_label("  %s", errors ? error_name(i) : pass_reason_name(i));
		put_rate(rate(v, dt));
		putchar('\n');
		for (cpu = 0; c->extended && cpu < c->ncpus; cpu++) {
			per = errors ? d->rx[cpu].errors[i] : d->rx[cpu].passed[i];
			if (!per)
				continue;
			put_label("    on cpu %d", cpu);
			put_rate(rate(per, dt));
			putchar('\n');
		}
	}
}

static void print_redirected(const struct stats_ctx *c, double dt)
{
	static const char *const cols[] = { "pkt/s" };
	bool header = false;
	int cpu;
	__u64 v;

	for (cpu = 0; cpu < c->ntargets; cpu++) {
		v = redirected_to(&c->delta, c->ncpus, cpu);
		if (!v && !(c->extended && c->configured[cpu]))
			continue;
		if (!header)
			put_header("REDIRECTED TO", cols, 1);
		header = true;
		put_label("  cpu %d", cpu);
		put_rate(rate(v, dt));
		putchar('\n');
	}
}

static void put_enqueue_row(const struct enqueue_count *e, double dt)
{
	put_rate(rate(e->processed, dt));
	put_rate(rate(e->drops, dt));
	if (e->bulks)
		printf("%*.2f\n", COL_W, (double)e->processed / e->bulks);
	else
		printf("%*s\n", COL_W, "-");
}

static void print_enqueue(const struct stats_ctx *c, double dt)
{
	static const char *const cols[] = { "pkt/s", "drop/s", "bulk-avg" };
	const struct stats_sample *d = &c->delta;
	const struct enqueue_count *pair;
	struct enqueue_count e;
	int to, from, n = c->ncpus;

	put_header("ENQUEUE (cpumap)", cols, 3);
	e = enqueue_all(d, n);
	put_label("  total");
	put_enqueue_row(&e, dt);
	for (to = 0; to < c->ntargets; to++) {
		e = enqueue_to(d, n, to);
		if (!e.bulks && !(c->extended && c->configured[to]))
			continue;
		put_label("  to cpu %d", to);
		put_enqueue_row(&e, dt);
		for (from = 0; c->extended && from < n; from++) {
			pair = &d->enqueue[from * n + to];
			if (!pair->bulks)
				continue;
			put_label("    from cpu %d", from);
			put_enqueue_row(pair, dt);
		}
	}
}

static void put_kthread_row(const struct kthread_count *k, double dt)
{
	put_rate(rate(k->processed, dt));
	put_rate(rate(k->drops, dt));
	put_rate(rate(k->sched, dt));
	put_rate(rate(k->xdp_pass, dt));
	put_rate(rate(k->xdp_drop, dt));
	put_rate(rate(k->xdp_redirect, dt));
	putchar('\n');
}

static void print_kthread(const struct stats_ctx *c, double dt)
{
	static const char *const cols[] = { "pkt/s", "drop/s", "sched/s",
					     "xdp-pass/s", "xdp-drop/s", "xdp-redir/s" };
	const struct stats_sample *d = &c->delta;
	struct kthread_count k = kthread_all(d, c->ncpus);
	int cpu;

	put_header("KTHREAD", cols, 6);
	put_label("  total");
	put_kthread_row(&k, dt);
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		if (!kthread_active(&d->kthread[cpu]) &&
		    !(c->extended && c->configured[cpu]))
			continue;
		put_label("  cpu %d", cpu);
		put_kthread_row(&d->kthread[cpu], dt);
	}
}

static void put_remote_row(const struct cpusteer_remote_counters *r, double dt)
{
	put_rate(rate(r->passed, dt));
	put_rate(rate(r->dropped, dt));
	put_rate(rate(r->redirected, dt));
	put_rate(rate(r->redirect_errors, dt));
	putchar('\n');
}

static void print_remote(const struct stats_ctx *c, double dt)
{
	static const char *const cols[] = { "pass/s", "drop/s", "redirect/s", "redir-err/s" };
	const struct stats_sample *d = &c->delta;
	struct cpusteer_remote_counters r = remote_all(d, c->ncpus);
	int cpu;

	put_header("SECOND STAGE", cols, 4);
	put_label("  total");
	put_remote_row(&r, dt);
	for (cpu = 0; c->extended && cpu < c->ncpus; cpu++) {
		r = d->remote[cpu];
		if (!r.passed && !r.dropped && !r.redirected && !r.redirect_errors)
			continue;
		put_label("  cpu %d", cpu);
		put_remote_row(&r, dt);
	}
}

static void print_xdp_errors(const struct stats_ctx *c, double dt)
{
	static const char *const cols[] = { "event/s" };
	const struct stats_sample *d = &c->delta;
	int slot;

	put_header("XDP ERRORS", cols, 1);
	if (c->tracer.attached[TP_XDP_EXCEPTION]) {
		put_label("  exceptions");
		put_rate(rate(exceptions_all(d), dt));
		putchar('\n');
		for (slot = 0; slot < TRACE_EXCEPTION_SLOTS; slot++) {
			if (!d->exceptions[slot] && !c->extended)
				continue;
			put_label("    %s", exception_name(slot));
			put_rate(rate(d->exceptions[slot], dt));
			putchar('\n');
		}
	}
	if (c->tracer.attached[TP_XDP_REDIRECT_ERR]) {
		put_label("  redirect errors");
		put_rate(rate(d->redirect_errors, dt));
		putchar('\n');
	}
}

static void print_table(const struct stats_ctx *c, double dt, const struct tm *now)
{
	const struct tracer *t = &c->tracer;
	struct cpusteer_remote_counters r = remote_all(&c->total, c->ncpus);

	printf("%s  %02d:%02d:%02d  interval %.2f s\n", c->ifname, now->tm_hour,
	       now->tm_min, now->tm_sec, dt);
	print_receive(c, dt);
	print_reasons(c, dt, false);
	print_reasons(c, dt, true);
	print_redirected(c, dt);
	if (t->attached[TP_CPUMAP_ENQUEUE])
		print_enqueue(c, dt);
	if (t->attached[TP_CPUMAP_KTHREAD])
		print_kthread(c, dt);
	if (c->extended || c->remote_configured || r.passed || r.dropped ||
	    r.redirected || r.redirect_errors)
		print_remote(c, dt);
	if (t->attached[TP_XDP_EXCEPTION] || t->attached[TP_XDP_REDIRECT_ERR])
		print_xdp_errors(c, dt);
	putchar('\n');
}

/* ---- JSON ---- */

static void json_rate(struct json *j, const char *key, __u64 count, double dt)
{
	json_uint(j, key, (unsigned long long)llround(rate(count, dt)));
}

static void json_reasons(struct json *j, const char *key, const __u64 *v, int n,
			 bool errors, double dt)
{
	int i;

	json_object_open(j, key);
	for (i = 0; i < n; i++) {
		const char *name = errors ? error_name(i) : pass_reason_name(i);

		if (dt > 0)
			json_rate(j, name, v[i], dt);
		else
			json_uint(j, name, v[i]);
	}
	json_object_close(j);
}

static void json_exceptions(struct json *j, const struct stats_sample *s, double dt)
{
	int slot;

	json_object_open(j, "exceptions");
	for (slot = 0; slot < TRACE_EXCEPTION_SLOTS; slot++) {
		if (dt > 0)
			json_rate(j, exception_name(slot), s->exceptions[slot], dt);
		else
			json_uint(j, exception_name(slot), s->exceptions[slot]);
	}
	json_object_close(j);
}

static void json_rx(struct json *j, const struct stats_ctx *c, double dt)
{
	const struct stats_sample *d = &c->delta;
	struct rx_sum s = rx_sum_all(d, c->ncpus);
	int cpu;

	json_object_open(j, "rx");
	json_rate(j, "total_pps", s.rx, dt);
	json_rate(j, "redirect_pps", s.redirect, dt);
	json_rate(j, "pass_pps", s.pass, dt);
	json_rate(j, "error_pps", s.error, dt);
	json_array_open(j, "per_cpu");
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		s = rx_sum_of(&d->rx[cpu]);
		json_object_open(j, NULL);
		json_uint(j, "cpu", cpu);
		json_rate(j, "pps", s.rx, dt);
		json_rate(j, "redirect_pps", s.redirect, dt);
		json_rate(j, "pass_pps", s.pass, dt);
		json_rate(j, "error_pps", s.error, dt);
		json_reasons(j, "pass", d->rx[cpu].passed, CPUSTEER_PASS_REASONS, false, dt);
		json_reasons(j, "errors", d->rx[cpu].errors, CPUSTEER_ERRORS, true, dt);
		json_object_close(j);
	}
	json_array_close(j);
	json_object_close(j);
}

static void json_enqueue(struct json *j, const struct stats_ctx *c, double dt)
{
	const struct enqueue_count *e, *t;
	int from, to, n = c->ncpus;

	/* Only pairs that carried frames since stats started: n * n
	 * entries would swamp a large machine.
	 */
	json_array_open(j, "enqueue");
	for (from = 0; from < n; from++)
		for (to = 0; to < c->ntargets; to++) {
			t = &c->total.enqueue[from * n + to];
			e = &c->delta.enqueue[from * n + to];
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

static void json_kthread(struct json *j, const struct stats_ctx *c, double dt)
{
	const struct kthread_count *k;
	int cpu;

	json_array_open(j, "kthread");
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		k = &c->delta.kthread[cpu];
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
static void json_totals(struct json *j, const struct stats_ctx *c)
{
	const struct stats_sample *t = &c->total;
	struct rx_sum s = rx_sum_all(t, c->ncpus);
	struct kthread_count k = kthread_all(t, c->ncpus);
	struct cpusteer_remote_counters r = remote_all(t, c->ncpus);
	struct enqueue_count e = enqueue_all(t, c->ncpus);
	__u64 pass[CPUSTEER_PASS_REASONS], errs[CPUSTEER_ERRORS];
	int i;

	for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
		pass[i] = passed_for(t, c->ncpus, i);
	for (i = 0; i < CPUSTEER_ERRORS; i++)
		errs[i] = errors_for(t, c->ncpus, i);
	json_object_open(j, "totals");
	json_uint(j, "rx", s.rx);
	json_uint(j, "redirect", s.redirect);
	json_uint(j, "pass", s.pass);
	json_uint(j, "error", s.error);
	json_reasons(j, "pass_reasons", pass, CPUSTEER_PASS_REASONS, false, 0);
	json_reasons(j, "errors", errs, CPUSTEER_ERRORS, true, 0);
	json_array_open(j, "redirect_per_target");
	for (i = 0; i < c->ntargets; i++) {
		json_object_open(j, NULL);
		json_uint(j, "cpu", i);
		json_uint(j, "packets", redirected_to(t, c->ncpus, i));
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

static void print_json(const struct stats_ctx *c, double dt, const char *when)
{
	struct cpusteer_remote_counters r = remote_all(&c->delta, c->ncpus);
	struct json j;
	int cpu, tp;

	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "interface", c->ifname);
	json_double(&j, "interval_s", dt);
	json_string(&j, "time", when);
	json_rx(&j, c, dt);
	json_array_open(&j, "redirect_per_target");
	for (cpu = 0; cpu < c->ntargets; cpu++) {
		json_object_open(&j, NULL);
		json_uint(&j, "cpu", cpu);
		json_rate(&j, "pps", redirected_to(&c->delta, c->ncpus, cpu), dt);
		json_object_close(&j);
	}
	json_array_close(&j);
	json_enqueue(&j, c, dt);
	json_kthread(&j, c, dt);
	json_remote(&j, &r, true, dt);
	json_exceptions(&j, &c->delta, dt);
	json_rate(&j, "redirect_errors", c->delta.redirect_errors, dt);
	json_object_open(&j, "tracepoints");
	for (tp = 0; tp < TP_COUNT; tp++)
		json_bool(&j, tracepoint_name(tp), c->tracer.attached[tp]);
	json_object_close(&j);
	json_totals(&j, c);
	json_object_close(&j);
}

/* ---- the command ---- */

static void note_missing(const struct stats_ctx *c)
{
	const struct tracer *t = &c->tracer;
	char line[512];
	int tp, len = 0;

	if (t->no_btf) {
		log_err("note: the kernel has no BTF (/sys/kernel/btf/vmlinux), so no tp_btf tracepoints: showing only the steering program's counters");
		return;
	}
	for (tp = 0; tp < TP_COUNT; tp++) {
		if (t->attached[tp])
			continue;
		len += snprintf(line + len, sizeof(line) - len, "%s%s (%s)",
				len ? ", " : "", tracepoint_name(tp), t->why_not[tp]);
		if (len >= (int)sizeof(line))
			break;
	}
	if (len)
		log_err("note: tracepoints not attached, their figures stay out: %s", line);
}

/* The interface's index in this process's network namespace, or 0 when
 * the instance's interface is not here: the tracepoints see ifindexes of
 * every namespace, and one from elsewhere would match the wrong device.
 */
static int local_ifindex(struct stats_ctx *c)
{
	struct cpusteer_instance_state st;
	int idx = if_nametoindex(c->ifname);

	if (idx && !instance_read_state(&c->in, &st) && st.ifindex != (__u32)idx)
		return 0;
	return idx;
}

static int open_all(struct stats_ctx *c)
{
	__u32 cpumap_id;
	int err;

	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0) {
		log_err("cannot count the possible CPUs: %s", strerror(-c->ncpus));
		return c->ncpus ? c->ncpus : -EINVAL;
	}
	c->ntargets = c->ncpus < CPUSTEER_MAX_CPUS ? c->ncpus : CPUSTEER_MAX_CPUS;
	c->configured = calloc(c->ncpus, sizeof(*c->configured));
	if (!c->configured)
		return -ENOMEM;
	err = instance_open_pinned(&c->in, c->ifname);
	if (err)
		return err;
	cpumap_id = instance_cpumap_id(&c->in);
	if (!cpumap_id) {
		log_err("cannot find the cpumap of the instance on %s", c->ifname);
		return -ENOENT;
	}
	err = tracer_open(&c->tracer, cpumap_id, local_ifindex(c));
	if (err) {
		log_err("cannot set up the tracepoints: %s", strerror(-err));
		return err;
	}
	if (sample_alloc(&c->base, c->ncpus) || sample_alloc(&c->prev, c->ncpus) ||
	    sample_alloc(&c->cur, c->ncpus) || sample_alloc(&c->delta, c->ncpus) ||
	    sample_alloc(&c->total, c->ncpus)) {
		log_err("stats: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void close_all(struct stats_ctx *c)
{
	sample_free(&c->base);
	sample_free(&c->prev);
	sample_free(&c->cur);
	sample_free(&c->delta);
	sample_free(&c->total);
	tracer_close(&c->tracer);
	if (c->in.skel)
		instance_close(&c->in);
	free(c->configured);
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void swap_samples(struct stats_sample *a, struct stats_sample *b)
{
	struct stats_sample t = *a;

	*a = *b;
	*b = t;
}

/* Sleeps to absolute deadlines so the blocks do not drift; a signal ends
 * the wait early and the loop.
 */
static int run(struct stats_ctx *c, __u32 count)
{
	struct timespec deadline, wall;
	char stamp[32], when[64];
	struct tm tm;
	double dt;
	__u32 done = 0;
	int err;

	read_targets(c);
	err = sample_read(&c->tracer, &c->in, &c->base);
	if (err)
		return err;
	sample_copy(&c->prev, &c->base, c->ncpus);
	deadline = c->base.mono;
	while (!stop && (!count || done < count)) {
		deadline.tv_sec += c->interval;
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&deadline, NULL) == EINTR)
			;
		if (stop)
			break;
		if (!instance_is_pinned(c->ifname)) {
			log_err("stats: the instance on %s was unloaded", c->ifname);
			return -ENOENT;
		}
		read_targets(c);
		err = sample_read(&c->tracer, &c->in, &c->cur);
		if (err)
			return err;
		dt = seconds_between(&c->prev.mono, &c->cur.mono);
		sample_diff(&c->delta, &c->cur, &c->prev, c->ncpus);
		sample_diff(&c->total, &c->cur, &c->base, c->ncpus);
		clock_gettime(CLOCK_REALTIME, &wall);
		if (c->json) {
			gmtime_r(&wall.tv_sec, &tm);
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
			snprintf(when, sizeof(when), "%s.%03dZ", stamp,
				 (int)(wall.tv_nsec / 1000000));
			print_json(c, dt, when);
		} else {
			localtime_r(&wall.tv_sec, &tm);
			print_table(c, dt, &tm);
		}
		fflush(stdout);
		swap_samples(&c->prev, &c->cur);
		done++;
	}
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "extended", no_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_ctx c = { .interval = 1 };
	struct sigaction sa = { .sa_handler = on_signal };
	__u32 count = 0;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "hv", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_u32("--interval", optarg, 1, 3600, &c.interval))
				return 1;
			break;
		case 'c':
			if (parse_u32("--count", optarg, 1, 0xffffffffu, &count))
				return 1;
			break;
		case 'e':
			c.extended = true;
			break;
		case 'j':
			c.json = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(stats_usage, stdout);
			return 0;
		default:
			fputs(stats_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		log_err("stats: expected one interface (cpusteer stats --help)");
		return EXIT_USAGE;
	}
	c.ifname = argv[optind];
	if (require_root("stats"))
		return 1;

	/* Handlers before anything attaches, so a signal always reaches the
	 * cleanup below.
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	err = open_all(&c);
	if (!err) {
		note_missing(&c);
		err = run(&c, count);
	}
	close_all(&c);
	return err ? 1 : 0;
}
