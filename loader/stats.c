// SPDX-License-Identifier: GPL-2.0
/* cpusteer stats: live counters of a running instance, one block per
 * interval, in the manner of xdp-bench. The steering program's own
 * per-CPU counters say what it decided; the cpumap and XDP tracepoints
 * (loader/instance/trace.c) say what became of the frames after it.
 * On a terminal each block is drawn over the last one, and a window too
 * short for every CPU's rows gets those of the busiest CPUs that fit.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "elsewhere.h"
#include "instance.h"
#include "log.h"
#include "names.h"
#include "options.h"
#include "pin_tree.h"
#include "screen.h"
#include "sample.h"
#include "instance_state.h"
#include "stats_view.h"
#include "trace.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A CPU and what it did in the last interval, to rank CPUs by. */
struct cpu_work {
	__u64 work;
	int cpu;
};

/* The view is what the table and the JSON read; the rest is the
 * sampling behind it.
 */
struct stats_ctx {
	struct stats_view v;
	struct instance_dir dir;
	struct steer_instance in;
	struct trace_programs programs;
	struct tracer tracer;
	bool json;
	__u32 interval;
	__u32 count;			/* blocks to show; 0: until stopped */
	struct stats_sample base, prev, cur;
	int *cpu_order;			/* the view's cpus */
	struct cpu_work *ranks;
	struct screen screen;		/* the last block, on a terminal */
};

/* The target CPUs and the hash the instance is set up for, read each
 * interval since `cpusteer set` may change them underneath.
 */
static void read_targets(struct stats_ctx *c)
{
	struct cpusteer_instance_state st;
	struct cpusteer_config cfg;
	int ncpus = c->v.ncpus;
	__u32 i;

	memset(c->v.configured, 0, ncpus * sizeof(*c->v.configured));
	if (!instance_read_state(&c->in, &st)) {
		for (i = 0; i < st.ncpus && i < CPUSTEER_MAX_CPUS; i++)
			if (st.cpus[i] < (__u32)ncpus)
				c->v.configured[st.cpus[i]] = true;
		c->v.remote_configured = st.remote != REMOTE_NONE;
	}
	if (instance_read_config(&c->in, &cfg))
		return;
	c->v.hash = hash_fn_name(cfg.hash_fn);
	if (cfg.non_ip_cpu < (__u32)ncpus)
		c->v.configured[cfg.non_ip_cpu] = true;
}

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

/* The index of the instance's interface, or 0 when that device is no
 * longer here (deleted, replaced): the tracepoints see ifindexes of every
 * namespace, and a stale one would match the wrong device.
 */
static int instance_ifindex(struct stats_ctx *c)
{
	struct cpusteer_instance_state st;

	if (instance_read_state(&c->in, &st) || !state_device_here(&st))
		return 0;
	return st.ifindex;
}

/* Rows for every CPU, in number order: the table as it goes to a pipe,
 * and to a window tall enough for it.
 */
static void show_every_cpu(struct stats_ctx *c)
{
	int cpu;

	for (cpu = 0; cpu < c->v.ncpus; cpu++)
		c->cpu_order[cpu] = cpu;
	c->v.ncpus_shown = c->v.ncpus;
	c->v.cpus_left_out = 0;
}

static int busiest_first(const void *a, const void *b)
{
	const struct cpu_work *x = a, *y = b;

	if (x->work != y->work)
		return x->work < y->work ? 1 : -1;
	return x->cpu - y->cpu;
}

/* Orders the CPUs busiest first, over the last interval, and returns how
 * many have rows in the table: those that did any work, and with
 * --extended the instance's targets too.
 */
static int rank_cpus(struct stats_ctx *c)
{
	int cpu, n = c->v.ncpus, with_rows = 0;

	for (cpu = 0; cpu < n; cpu++) {
		c->ranks[cpu].cpu = cpu;
		c->ranks[cpu].work = sample_cpu_work(&c->v.delta, n, cpu);
		if (c->ranks[cpu].work || (c->v.extended && c->v.configured[cpu]))
			with_rows++;
	}
	qsort(c->ranks, n, sizeof(*c->ranks), busiest_first);
	for (cpu = 0; cpu < n; cpu++)
		c->cpu_order[cpu] = c->ranks[cpu].cpu;
	return with_rows;
}

/* The table in memory, to measure and then to draw; NULL when there is no
 * memory for it.
 */
static char *render_table(const struct stats_ctx *c, double dt, const struct timespec *wall,
			  size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	stats_print_table(f, &c->v, dt, wall);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static bool table_fits(const struct stats_ctx *c, const struct screen_size *ws, double dt,
		       const struct timespec *wall)
{
	size_t len;
	char *text = render_table(c, dt, wall, &len);
	bool fits = text && screen_rows(text, len, ws->cols) < ws->rows;

	free(text);
	return fits;
}

/* The block over the last one, in a window `ws` read for each block (it
 * may have been resized). When every CPU's rows do not fit, the busiest
 * CPUs that do, busiest first: the table grows with each CPU shown, so
 * the most that fit are found by halving, below all of those with rows
 * (which is every CPU's table again, known not to fit).
 */
static void draw_table(struct stats_ctx *c, const struct screen_size *ws, double dt,
		       const struct timespec *wall)
{
	int least = 0, most, mid, with_rows;
	size_t len;
	char *text;

	show_every_cpu(c);
	if (!table_fits(c, ws, dt, wall)) {
		with_rows = rank_cpus(c);
		most = with_rows ? with_rows - 1 : 0;
		while (least < most) {
			mid = (least + most + 1) / 2;
			c->v.ncpus_shown = mid;
			c->v.cpus_left_out = with_rows - mid;
			if (table_fits(c, ws, dt, wall))
				least = mid;
			else
				most = mid - 1;
		}
		c->v.ncpus_shown = least;
		c->v.cpus_left_out = with_rows - least;
	}
	text = render_table(c, dt, wall, &len);
	if (text)
		screen_draw(&c->screen, ws, stdout, text, len);
	else
		stats_print_table(stdout, &c->v, dt, wall);
	free(text);
}

static int open_all(struct stats_ctx *c)
{
	__u32 cpumap_id;
	int err;

	c->v.ncpus = libbpf_num_possible_cpus();
	if (c->v.ncpus <= 0) {
		log_err("cannot count the possible CPUs: %s", strerror(-c->v.ncpus));
		return c->v.ncpus ? c->v.ncpus : -EINVAL;
	}
	c->v.configured = calloc(c->v.ncpus, sizeof(*c->v.configured));
	c->cpu_order = calloc(c->v.ncpus, sizeof(*c->cpu_order));
	c->ranks = calloc(c->v.ncpus, sizeof(*c->ranks));
	if (!c->v.configured || !c->cpu_order || !c->ranks)
		return -ENOMEM;
	c->v.cpus = c->cpu_order;
	show_every_cpu(c);
	err = instance_dir_open(&c->dir, 0);
	if (err == -ENOENT || (!err && instance_dir_is_empty(&c->dir))) {
		elsewhere_not_here(&c->dir, "stats");
		return -ENOENT;
	}
	if (!err)
		err = instance_open_pinned(&c->in, c->dir.fd, c->dir.shown);
	if (err)
		return err;
	cpumap_id = instance_cpumap_id(&c->in);
	if (!cpumap_id) {
		log_err("cannot find the cpumap of the instance on %s", c->dir.shown);
		return -ENOENT;
	}
	err = trace_programs_open(&c->programs);
	if (!err)
		err = tracer_open(&c->tracer, &c->programs, cpumap_id, c->dir.netns_ino,
				  instance_ifindex(c));
	if (err) {
		log_err("cannot set up the tracepoints: %s", strerror(-err));
		return err;
	}
	if (sample_alloc(&c->base, c->v.ncpus) || sample_alloc(&c->prev, c->v.ncpus) ||
	    sample_alloc(&c->cur, c->v.ncpus) || sample_alloc(&c->v.delta, c->v.ncpus) ||
	    sample_alloc(&c->v.total, c->v.ncpus)) {
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
	sample_free(&c->v.delta);
	sample_free(&c->v.total);
	tracer_close(&c->tracer);
	trace_programs_close(&c->programs);
	instance_close(&c->in);
	instance_dir_close(&c->dir);
	free(c->v.configured);
	free(c->cpu_order);
	free(c->ranks);
}

/* An instance unloaded (and maybe loaded anew) or an interface deleted
 * under a running stats: its counters would be zeros or another
 * instance's from now on.
 */
static int instance_gone(struct stats_ctx *c)
{
	if (!instance_dir_current(&c->dir)) {
		log_err("stats: the instance on %s was unloaded", c->dir.shown);
		return -ENOENT;
	}
	if (!instance_ifindex(c)) {
		log_err("stats: %s is gone from this network namespace", c->dir.shown);
		return -ENODEV;
	}
	return 0;
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
static int run(struct stats_ctx *c)
{
	struct timespec deadline, wall;
	struct screen_size ws;
	double dt;
	__u32 done = 0;
	int err;

	read_targets(c);
	err = sample_read(&c->tracer, &c->in, &c->base);
	if (err)
		return err;
	sample_copy(&c->prev, &c->base, c->v.ncpus);
	deadline = c->base.mono;
	while (!stop && (!c->count || done < c->count)) {
		deadline.tv_sec += c->interval;
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&deadline, NULL) == EINTR)
			;
		if (stop)
			break;
		err = instance_gone(c);
		if (err)
			return err;
		read_targets(c);
		err = sample_read(&c->tracer, &c->in, &c->cur);
		if (err)
			return err;
		dt = seconds_between(&c->prev.mono, &c->cur.mono);
		sample_diff(&c->v.delta, &c->cur, &c->prev, c->v.ncpus);
		sample_diff(&c->v.total, &c->cur, &c->base, c->v.ncpus);
		clock_gettime(CLOCK_REALTIME, &wall);
		if (c->json)
			stats_print_json(&c->v, dt, &wall);
		else if (screen_size(STDOUT_FILENO, &ws))
			draw_table(c, &ws, dt, &wall);
		else
			stats_print_table(stdout, &c->v, dt, &wall);
		fflush(stdout);
		swap_samples(&c->prev, &c->cur);
		done++;
	}
	return 0;
}

static const struct cli_option stats_options[] = {
	CLI_WHOLE_OPTION("interval", "S", struct stats_ctx, interval, 1, 3600,
			 "seconds between blocks, 1-3600", "1"),
	CLI_WHOLE_OPTION("count", "N", struct stats_ctx, count, 1, 0xffffffffu, "stop after N blocks",
			 "until Ctrl-C or SIGTERM"),
	CLI_FLAG("extended", struct stats_ctx, v.extended,
	  "every reason, target and action row even at zero, and\n"
	  "per-CPU breakdowns (pass reasons and errors per receiving\n"
	  "CPU, enqueue per source CPU, second stage per CPU)"),
	CLI_FLAG("json", struct stats_ctx, json,
	  "one JSON object per interval, one line each, with rates\n"
	  "and the cumulative totals since stats started"),
	{}
};

static const struct stats_ctx stats_start = { .interval = 1 };

const struct cli_command stats_command = {
	.name = "stats",
	.summary = "live per-CPU rates: receive, enqueue, kthread, XDP errors",
	.operands = "IFACE",
	.about = "Shows, once per interval, what becomes of the packets arriving on IFACE:\n"
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
		 "On a terminal each block is drawn over the last; a window too short for\n"
		 "every CPU shows the busiest CPUs that fit, and says how many it left out.\n",
	.groups = { { stats_options, 0 } },
	.start = &stats_start,
	.run = cmd_stats,
};

int cmd_stats(int argc, char **argv)
{
	struct stats_ctx c = stats_start;
	struct sigaction sa = { .sa_handler = on_signal };
	int operand, err;

	c.v.tracer = &c.tracer;
	err = cli_parse(&stats_command, argc, argv, &c, &operand);
	if (err)
		return cli_exit_status(err);
	if (ifname_check(argv[operand]))
		return EXIT_USAGE;
	if (require_root("stats"))
		return EXIT_FAILURE;
	err = instance_dir_init(&c.dir, argv[operand]);
	if (!err)
		err = bpffs_check();
	if (err)
		return exit_code(err);
	instance_init(&c.in);
	c.v.ifname = c.dir.ifname;
	c.v.ifname_shown = c.dir.shown;

	/* Handlers before anything attaches, so a signal always reaches the
	 * cleanup below.
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	err = open_all(&c);
	if (!err) {
		note_missing(&c);
		err = run(&c);
	}
	close_all(&c);
	return exit_code(err);
}
