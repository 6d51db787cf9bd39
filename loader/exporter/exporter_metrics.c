// SPDX-License-Identifier: GPL-2.0
/* The exposition: one table of families, each written whole (HELP, TYPE,
 * then the series of every instance) before the next begins, as the
 * format requires. Every family is there even with no instance, so a
 * reader can tell a truncated text from a short one.
 *
 * Per-CPU families have a series for every possible CPU, zeros included:
 * a CPU that becomes a target later then has a series from the start,
 * and rate() does not miss its first packets.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include "counters.h"
#include "cpumap_threads.h"
#include "exporter_metrics.h"
#include "instance_state.h"
#include "kernel_features.h"
#include "names.h"
#include "options.h"
#include "tunnel_opts.h"
#include "utf8.h"
#include "version.h"

struct out {
	FILE *f;
	const char *family;
	int ncpus;
};

void metrics_escape(FILE *f, const char *v, bool quoted)
{
	const unsigned char *p = (const unsigned char *)v;
	int n;

	while (*p) {
		n = utf8_sequence(p);
		if (n <= 0) {
			/* The value gets the four characters \xNN (the text
			 * escapes their backslash): still UTF-8, and the byte
			 * can be read back.
			 */
			fprintf(f, "\\\\x%02x", *p++);
			continue;
		}
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '"' && quoted)
			fputs("\\\"", f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}

static void label(struct out *o, const char **sep, const char *name, const char *value)
{
	fprintf(o->f, "%s%s=\"", *sep, name);
	metrics_escape(o->f, value, true);
	fputc('"', o->f);
	*sep = ",";
}

/* The name and labels of a series of the current family: those of
 * instance `m` (none for NULL), then the name, value pairs of `ap` up to
 * a NULL name.
 */
static void series_labels(struct out *o, const struct metrics_instance *m, va_list ap)
{
	const char *sep = "{", *name;
	char netns[24];

	fputs(o->family, o->f);
	if (m) {
		snprintf(netns, sizeof(netns), "%llu", (unsigned long long)m->netns_cookie);
		label(o, &sep, "interface", m->interface);
		label(o, &sep, "netns", netns);
	}
	while ((name = va_arg(ap, const char *)))
		label(o, &sep, name, va_arg(ap, const char *));
	if (*sep == ',')
		fputc('}', o->f);
}

/* One series: its labels (series_labels), then the value. */
static void series(struct out *o, const struct metrics_instance *m, __u64 value, ...)
{
	va_list ap;

	va_start(ap, value);
	series_labels(o, m, ap);
	va_end(ap);
	fprintf(o->f, " %llu\n", (unsigned long long)value);
}

/* The same with a value that may be below 0 (a nice value). */
static void series_signed(struct out *o, const struct metrics_instance *m, long long value, ...)
{
	va_list ap;

	va_start(ap, value);
	series_labels(o, m, ap);
	va_end(ap);
	fprintf(o->f, " %lld\n", value);
}

/* A __u64 at byte `offset` of a counter struct (all of them are __u64
 * words, sample.h).
 */
static __u64 word(const void *counters, size_t offset)
{
	return *(const __u64 *)((const char *)counters + offset);
}

/* Per-CPU figures of a sample, by CPU and a field of its counter struct. */
static __u64 enqueue_field(const struct stats_sample *s, int n, int cpu, size_t field)
{
	struct enqueue_count e = sample_enqueue_to(s, n, cpu);

	return word(&e, field);
}

static __u64 kthread_field(const struct stats_sample *s, int n, int cpu, size_t field)
{
	(void)n;
	return word(&s->kthread[cpu], field);
}

static __u64 remote_field(const struct stats_sample *s, int n, int cpu, size_t field)
{
	(void)n;
	return word(&s->remote[cpu], field);
}

/* A family with a series per CPU, and per value of a second label. */
struct per_cpu {
	__u64 (*get)(const struct stats_sample *s, int ncpus, int cpu, size_t field);
	const char *label;	/* the second label, or NULL for one row */
	int nrows;
	struct {
		const char *value;
		size_t field;
	} rows[4];
};

#define ONE_ROW(get_, type_, field_) \
	{ .get = (get_), .nrows = 1, .rows = { { NULL, offsetof(type_, field_) } } }

static const struct per_cpu enqueued = ONE_ROW(enqueue_field, struct enqueue_count, processed);
static const struct per_cpu enqueue_drops = ONE_ROW(enqueue_field, struct enqueue_count, drops);
static const struct per_cpu enqueue_bulks = ONE_ROW(enqueue_field, struct enqueue_count, bulks);
static const struct per_cpu kthread_packets = ONE_ROW(kthread_field, struct kthread_count, processed);
static const struct per_cpu kthread_drops = ONE_ROW(kthread_field, struct kthread_count, drops);
static const struct per_cpu kthread_sched = ONE_ROW(kthread_field, struct kthread_count, sched);
static const struct per_cpu kthread_xdp = {
	.get = kthread_field, .label = "action", .nrows = 3,
	.rows = { { "pass", offsetof(struct kthread_count, xdp_pass) },
		  { "drop", offsetof(struct kthread_count, xdp_drop) },
		  { "redirect", offsetof(struct kthread_count, xdp_redirect) } },
};
static __u64 rule_hits(const struct stats_sample *s, int n, int cpu, size_t field)
{
	(void)n;
	(void)field;
	return s->rule_hits[cpu];
}

static const struct per_cpu by_rule = { .get = rule_hits, .nrows = 1 };
static const struct per_cpu remote = {
	.get = remote_field, .label = "outcome", .nrows = 4,
	.rows = { { "pass", offsetof(struct cpusteer_remote_counters, passed) },
		  { "drop", offsetof(struct cpusteer_remote_counters, dropped) },
		  { "redirect", offsetof(struct cpusteer_remote_counters, redirected) },
		  { "redirect_error", offsetof(struct cpusteer_remote_counters, redirect_errors) } },
};

struct family {
	const char *name;
	const char *type;
	const char *help;
	/* Exporter-wide families have their series from whole(); the
	 * others a block per instance, from emit() and what it reads below.
	 */
	void (*whole)(struct out *o, const struct metrics_scrape *s);
	void (*emit)(struct out *o, const struct metrics_instance *m, const struct family *fam);
	__u64 (*value)(const struct metrics_instance *m);	/* emit_value */
	size_t target_array;	/* emit_targets: a __u32 per target CPU */
	const struct per_cpu *per_cpu;				/* emit_per_cpu */
	/* Every instance judged, exported or not: health series. */
	bool every_judged;
	bool thread_pid;	/* emit_threads: the pid, else the priority */
	/* Not one family: the steering program's, one for each counter. */
	bool steering_counters;
};

static void emit_value(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	series(o, m, fam->value(m), NULL);
}

static const char *yes_no(bool b)
{
	return b ? "true" : "false";
}

static void emit_info(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	char inner[160], non_ip[16], qsize[12], buckets[12], prog[12], kthreads[32];
	struct cpumap_opts cm;

	(void)fam;
	state_get_cpumap(&m->st, &cm);
	kthread_sched_format(&cm.kthread, kthreads, sizeof(kthreads));
	inner_format(&m->cfg, inner, sizeof(inner));
	non_ip_format(&m->cfg, non_ip, sizeof(non_ip));
	snprintf(qsize, sizeof(qsize), "%u", m->st.qsize);
	snprintf(buckets, sizeof(buckets), "%u", m->cfg.nbuckets);
	snprintf(prog, sizeof(prog), "%u", m->st.prog_id);
	series(o, m, 1, "xdp_mode", xdp_mode_name(m->st.xdp_mode), "hash",
	       hash_fn_name(m->cfg.hash_fn), "symmetric", yes_no(m->cfg.symmetric), "inner", inner,
	       "non_ip", non_ip, "remote", remote_action_name(m->st.remote), "qsize", qsize,
	       "buckets", buckets, "bucket_stats", yes_no(m->cfg.bucket_stats), "program_id", prog,
	       "kthread_sched", kthreads, NULL);
}

/* The kthread of each target CPU that has one: its pid, or its priority
 * (the nice value under other, batch and idle), with its policy.
 */
static void emit_threads(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	const struct cpumap_thread *t;
	char cpu[12];
	__u32 i;

	for (i = 0; i < m->cpus.n && i < CPUSTEER_MAX_CPUS; i++) {
		t = cpumap_threads_of(&m->threads, m->cpus.cpu[i]);
		if (!t)
			continue;
		snprintf(cpu, sizeof(cpu), "%u", m->cpus.cpu[i]);
		series_signed(o, m, fam->thread_pid ? t->pid : cpumap_thread_priority(t), "cpu", cpu,
			      "policy", sched_policy_name(t->policy), NULL);
	}
}

static void emit_tracepoints(struct out *o, const struct metrics_instance *m,
			     const struct family *fam)
{
	int tp;

	(void)fam;
	for (tp = 0; tp < TP_COUNT; tp++)
		series(o, m, m->traced[tp], "tracepoint", tracepoint_name(tp), NULL);
}

static void emit_targets(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	const __u32 *values = (const __u32 *)((const char *)m + fam->target_array);
	char cpu[12];
	__u32 i;

	for (i = 0; i < m->cpus.n && i < CPUSTEER_MAX_CPUS; i++) {
		snprintf(cpu, sizeof(cpu), "%u", m->cpus.cpu[i]);
		series(o, m, values[i], "cpu", cpu, NULL);
	}
}

static void emit_per_cpu(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	const struct per_cpu *p = fam->per_cpu;
	char cpu[12];
	int c, r;

	for (c = 0; c < o->ncpus; c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		for (r = 0; r < p->nrows; r++)
			series(o, m, p->get(&m->sample, o->ncpus, c, p->rows[r].field), "cpu", cpu,
			       p->label, p->rows[r].value, NULL);
	}
}

/* A steering counter of instance `m`: a series per CPU (a single counter
 * per receiving CPU, the redirect slots per target CPU), or its sum over
 * CPUs, an array's entries by their label.
 */
static void emit_counter(struct out *o, const struct metrics_instance *m,
			 const struct counter_desc *c)
{
	const struct stats_sample *s = &m->sample;
	struct cpusteer_counters sum;
	char cpu[12];
	__u32 i;
	int k;

	if (c->per_cpu) {
		for (k = 0; k < o->ncpus; k++) {
			snprintf(cpu, sizeof(cpu), "%d", k);
			series(o, m, c->n ? counter_value(c, &s->rx[k], 0)
					  : sample_redirected_to(s, o->ncpus, k),
			       "cpu", cpu, NULL);
		}
		return;
	}
	sample_rx_all(&sum, s, o->ncpus);
	for (i = 0; i < c->n; i++)
		series(o, m, counter_value(c, &sum, i), c->label, counter_entry_name(c, i), NULL);
}

static void emit_exceptions(struct out *o, const struct metrics_instance *m,
			    const struct family *fam)
{
	int slot;

	(void)fam;
	for (slot = 0; slot < TRACE_EXCEPTION_SLOTS; slot++)
		series(o, m, m->sample.exceptions[slot], "action", exception_slot_name(slot), NULL);
}

static void instances(struct out *o, const struct metrics_scrape *s)
{
	series(o, NULL, s->n, NULL);
}

static void build_info(struct out *o, const struct metrics_scrape *s)
{
	struct build_info b;

	(void)s;
	build_info_get(&b);
	series(o, NULL, 1, "version", b.version, "commit", b.commit, "libbpf", b.libbpf, "libxdp",
	       b.libxdp, "bpf_compiler", b.bpf_compiler, NULL);
}

/* One series: 1, or 0 with the reason as a label. */
static void state_dir_ok(struct out *o, const struct metrics_scrape *s)
{
	if (s->state_dir_problem)
		series(o, NULL, 0, "reason", s->state_dir_problem, NULL);
	else
		series(o, NULL, 1, NULL);
}

static const char *const skip_reasons[SKIP_COUNT] = {
	[SKIP_LOCKED] = "locked",
	[SKIP_NOT_READY] = "not_ready",
	[SKIP_UNREADABLE] = "unreadable",
};

/* Every reason, zeros included: a reason that appears later then has its
 * series from the start.
 */
static void skipped(struct out *o, const struct metrics_scrape *s)
{
	int r;

	for (r = 0; r < SKIP_COUNT; r++)
		series(o, NULL, s->skipped[r], "reason", skip_reasons[r], NULL);
}

static __u64 present(const struct metrics_instance *m)
{
	return m->present;
}

static __u64 cpumap_gro(const struct metrics_instance *m)
{
	return !!(m->st.kernel_features & KF_CPUMAP_GRO);
}

static __u64 redirect_errors(const struct metrics_instance *m)
{
	return m->sample.redirect_errors;
}

/* What status says of the instance: its first problem, by the names of
 * instance_health.h, "ok" when there is none.
 */
static void emit_health(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	(void)fam;
	series(o, m, 1, "problem", health_problem_name(m->health.problem), NULL);
}

static void emit_phase(struct out *o, const struct metrics_instance *m, const struct family *fam)
{
	(void)fam;
	series(o, m, 1, "phase", state_phase_name(m->health.phase), NULL);
}

static __u64 attached(const struct metrics_instance *m)
{
	return m->health.attached;
}

#define TP " (tracepoint: counts from when the exporter attached to the instance)"

static const struct family families[] = {
	{ "cpusteer_build_info", "gauge",
	  "always 1: this exporter's version and git commit, the libbpf and libxdp it runs with, "
	  "and the compiler of its BPF programs, as cpusteer version prints them",
	  .whole = build_info },
	{ "cpusteer_state_dir_ok", "gauge",
	  "1 while the state folder /sys/fs/bpf/cpusteer is usable or not made yet; 0 when it "
	  "is not, with a reason: refused (not root's alone: its owner, its mode, a link; the "
	  "exporter's log says which) or unreadable; its instances are then not exported",
	  .whole = state_dir_ok },
	{ "cpusteer_instances", "gauge",
	  "cpusteer instances exported, of every network namespace", .whole = instances },
	{ "cpusteer_instances_skipped", "gauge",
	  "instance folders under /sys/fs/bpf/cpusteer not exported at this scrape, by reason: "
	  "locked (a command is changing the instance), not_ready (being loaded or unloaded, or "
	  "left by an interrupted command), unreadable (of another cpusteer version, a pin missing)",
	  .whole = skipped },
	{ "cpusteer_instance_health", "gauge",
	  "always 1, for every instance whose record was read: the first thing wrong with it, as "
	  "status says, in the label problem (ok, other_version, incomplete, interrupted_load, "
	  "interrupted_set, interrupted_balance, interrupted_unload, set_failed, interface_gone, "
	  "program_replaced, not_attached, redirect_target_gone); alert on problem!=\"ok\"",
	  .emit = emit_health, .every_judged = true },
	{ "cpusteer_instance_phase", "gauge",
	  "always 1: the phase the instance's record is in (loading, ready, setting, balancing, "
	  "set_failed, unloading)", .emit = emit_phase, .every_judged = true },
	{ "cpusteer_instance_attached", "gauge",
	  "1 while the program the instance recorded is attached to its interface",
	  .emit = emit_value, .value = attached, .every_judged = true },
	{ "cpusteer_instance_info", "gauge", "the instance's settings, as labels; always 1",
	  .emit = emit_info },
	{ "cpusteer_interface_present", "gauge",
	  "1 while the interface the instance was loaded on is in its network namespace",
	  .emit = emit_value, .value = present },
	{ "cpusteer_cpumap_gro", "gauge",
	  "1 when the kernel's cpumap does GRO itself (probed when the instance was loaded)",
	  .emit = emit_value, .value = cpumap_gro },
	{ "cpusteer_tracepoint_attached", "gauge",
	  "1 when the exporter counts this tracepoint for the instance; the series it feeds stay 0 "
	  "otherwise", .emit = emit_tracepoints },
	{ "cpusteer_cpu_weight", "gauge", "weight of each target CPU",
	  .emit = emit_targets, .target_array = offsetof(struct metrics_instance, cpus.weight) },
	{ "cpusteer_cpu_buckets", "gauge", "buckets of the indirection table each target CPU owns",
	  .emit = emit_targets, .target_array = offsetof(struct metrics_instance, buckets) },
	{ "cpusteer_cpumap_thread_pid", "gauge",
	  "pid of the cpumap kthread of each target CPU, with its scheduling policy (other, fifo, "
	  "rr, batch, idle, deadline, ext); none while no thread of that CPU is found",
	  .emit = emit_threads, .thread_pid = true },
	{ "cpusteer_cpumap_thread_priority", "gauge",
	  "priority of the cpumap kthread of each target CPU: 1 to 99 under the real-time policies "
	  "fifo and rr, the nice value (-20 to 19) under the others; load --kthread-sched sets it",
	  .emit = emit_threads },
	{ .steering_counters = true },
	{ "cpusteer_rule_redirected_packets_total", "counter",
	  "packets a prefix rule (cpusteer rule) sent to each target CPU, of those redirected or "
	  "counted as errors there", .emit = emit_per_cpu, .per_cpu = &by_rule },
	{ "cpusteer_cpumap_enqueued_packets_total", "counter",
	  "packets offered to each target CPU's cpumap queue, drops included" TP,
	  .emit = emit_per_cpu, .per_cpu = &enqueued },
	{ "cpusteer_cpumap_enqueue_dropped_packets_total", "counter",
	  "packets dropped because the target CPU's cpumap queue was full" TP,
	  .emit = emit_per_cpu, .per_cpu = &enqueue_drops },
	{ "cpusteer_cpumap_enqueue_bulks_total", "counter",
	  "bulk flushes into each target CPU's cpumap queue, up to 8 packets each" TP,
	  .emit = emit_per_cpu, .per_cpu = &enqueue_bulks },
	{ "cpusteer_cpumap_kthread_packets_total", "counter",
	  "packets the cpumap kthread of each target CPU took from its queue" TP,
	  .emit = emit_per_cpu, .per_cpu = &kthread_packets },
	{ "cpusteer_cpumap_kthread_dropped_packets_total", "counter",
	  "packets the cpumap kthread dropped because no skb could be allocated" TP,
	  .emit = emit_per_cpu, .per_cpu = &kthread_drops },
	{ "cpusteer_cpumap_kthread_sched_total", "counter",
	  "cpumap kthread rounds that ended in a reschedule" TP,
	  .emit = emit_per_cpu, .per_cpu = &kthread_sched },
	{ "cpusteer_cpumap_kthread_xdp_packets_total", "counter",
	  "verdicts of the second-stage program as the cpumap kthread counted them" TP,
	  .emit = emit_per_cpu, .per_cpu = &kthread_xdp },
	{ "cpusteer_remote_packets_total", "counter",
	  "the second-stage program's own counters (load --remote), by target CPU",
	  .emit = emit_per_cpu, .per_cpu = &remote },
	{ "cpusteer_xdp_exceptions_total", "counter",
	  "XDP exceptions on the interface, by action" TP, .emit = emit_exceptions },
	{ "cpusteer_xdp_redirect_errors_total", "counter",
	  "failed XDP redirects on the interface" TP, .emit = emit_value, .value = redirect_errors },
};

static void family_head(struct out *o, const char *name, const char *type, const char *help)
{
	o->family = name;
	fprintf(o->f, "# HELP %s ", name);
	metrics_escape(o->f, help, false);
	fprintf(o->f, "\n# TYPE %s %s\n", name, type);
}

/* A family per steering counter, named for what it counts and its unit. */
static void steering_counters(struct out *o, const struct metrics_scrape *s)
{
	const struct counter_desc *c;
	char name[96];
	size_t i;

	for_each_counter(c) {
		if (!c->metric)
			continue;
		snprintf(name, sizeof(name), "cpusteer_%s_%s_total", c->metric, c->unit);
		family_head(o, name, "counter", c->help);
		for (i = 0; i < s->n; i++)
			emit_counter(o, s->in[i], c);
	}
}

int metrics_write(FILE *f, const struct metrics_scrape *s)
{
	struct out o = { .f = f, .ncpus = s->ncpus };
	const struct family *fam;
	size_t i;

	for (fam = families; fam < families + sizeof(families) / sizeof(families[0]); fam++) {
		if (fam->steering_counters) {
			steering_counters(&o, s);
			continue;
		}
		family_head(&o, fam->name, fam->type, fam->help);
		if (fam->whole)
			fam->whole(&o, s);
		else if (fam->every_judged)
			for (i = 0; i < s->njudged; i++)
				fam->emit(&o, s->judged[i], fam);
		else
			for (i = 0; i < s->n; i++)
				fam->emit(&o, s->in[i], fam);
	}
	return ferror(f) ? -EIO : 0;
}
