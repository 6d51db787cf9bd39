// SPDX-License-Identifier: GPL-2.0
/* cpusteer balance: moves buckets between CPUs by the load they carried.
 * A hash spreads flows, not load: a few heavy flows can make one CPU the
 * bottleneck while others idle. Every interval this reads the per-bucket
 * counters of --bucket-stats, asks bucket_balance.h for the fewest moves
 * that bring the most loaded CPU within the threshold of its weighted
 * share, and writes them through set's all-or-nothing path under the
 * instance's lock, which it holds only for that step: set, status and
 * unload go on working around it.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include "bucket_balance.h"
#include "change.h"
#include "commands.h"
#include "elsewhere.h"
#include "instance.h"
#include "instance_state.h"
#include "json.h"
#include "lock.h"
#include "log.h"
#include "options.h"
#include "pin_tree.h"
#include "stats_math.h"

#define DEFAULT_THRESHOLD 0.1
#define DEFAULT_MIN_PACKETS 1000

/* SIGINT and SIGTERM stay blocked for the whole run and are taken only
 * where balance may stop: while it sleeps between steps, and while it
 * waits for the instance's lock (lock_wait() gives up with -EINTR when
 * one is pending). A step, from reading the counters to the last write of
 * the table, always runs to its end.
 */
static const int stop_signals[] = { SIGINT, SIGTERM };

static void stop_signals_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(set, stop_signals[i]);
}

/* Whether a stop signal arrived; takes it off the pending set. */
static bool stop_requested(void)
{
	struct timespec none = { 0 };
	sigset_t set;

	stop_signals_set(&set);
	return sigtimedwait(&set, NULL, &none) > 0;
}

struct balance_ctx {
	struct instance_dir dir;
	struct steer_instance in;
	double interval, threshold;
	__u32 max_moves;		/* 0: 1% of the buckets, at least one */
	__u32 min_packets;
	bool once, dry_run, json;
	unsigned int step;
	/* The counters at the start of the interval, for this many buckets;
	 * 0 until the first reading, or after the table was resized.
	 */
	struct cpusteer_bucket_load *prev, *cur;
	__u32 nbuckets;
	struct timespec read_at;	/* when `prev` was read */
	__u64 *load;			/* packets per bucket in the interval */
	__u32 *table, *new_table;
	struct bucket_move *moves;
	struct balance_plan plan;
	struct cpuset cpus;
};

/* What one step found and did, for the report. */
struct step_result {
	double seconds;
	__u64 bytes;
	bool applied;
	bool quiet;			/* under --min-packets: nothing planned */
};

static int alloc_buffers(struct balance_ctx *c, __u32 nbuckets)
{
	size_t n = nbuckets;

	c->prev = calloc(n, sizeof(*c->prev));
	c->cur = calloc(n, sizeof(*c->cur));
	c->load = calloc(n, sizeof(*c->load));
	c->table = calloc(n, sizeof(*c->table));
	c->new_table = calloc(n, sizeof(*c->new_table));
	c->moves = calloc(n, sizeof(*c->moves));
	if (c->prev && c->cur && c->load && c->table && c->new_table && c->moves)
		return 0;
	log_err("balance: out of memory");
	return -ENOMEM;
}

static void free_buffers(struct balance_ctx *c)
{
	free(c->prev);
	free(c->cur);
	free(c->load);
	free(c->table);
	free(c->new_table);
	free(c->moves);
}

/* The instance must count what it carries. */
static int check_counting(struct balance_ctx *c)
{
	struct cpusteer_config cfg;

	if (instance_read_config(&c->in, &cfg)) {
		log_err("cannot read the live configuration of %s", c->dir.shown);
		return -EIO;
	}
	if (!cfg.bucket_stats) {
		log_err("cannot balance %s: it counts no bucket loads; load it with --bucket-stats",
			c->dir.shown);
		return -EINVAL;
	}
	return alloc_buffers(c, c->in.bucket_load_entries);
}

static int open_instance(struct balance_ctx *c)
{
	int err = instance_dir_open(&c->dir, 0);

	if (err == -ENOENT || (!err && instance_dir_is_empty(&c->dir))) {
		elsewhere_not_here(&c->dir, "balance");
		return -ENOENT;
	}
	if (!err)
		err = instance_open_pinned(&c->in, c->dir.fd, c->dir.shown);
	if (!err) {
		struct cpusteer_instance_state st;

		err = instance_read_state_to(&c->in, &st, "balance", c->dir.shown);
	}
	return err ?: check_counting(c);
}

static int still_there(struct balance_ctx *c)
{
	struct cpusteer_instance_state st;

	if (!instance_dir_current(&c->dir)) {
		log_err("balance: the instance on %s was unloaded", c->dir.shown);
		return -ENOENT;
	}
	if (instance_read_state(&c->in, &st) || !state_device_here(&st)) {
		log_err("balance: %s is gone from this network namespace", c->dir.shown);
		return -ENODEV;
	}
	return 0;
}

static __u32 moves_allowed(const struct balance_ctx *c, __u32 nbuckets)
{
	if (c->max_moves)
		return c->max_moves < nbuckets ? c->max_moves : nbuckets;
	return nbuckets / 100 ? nbuckets / 100 : 1;
}

/* The live table, the instance's CPUs and the counters now, all read
 * under the lock that set takes, so the plan is made on what it will
 * change.
 */
static int read_live(struct balance_ctx *c, __u32 *nbuckets)
{
	struct cpusteer_instance_state st;
	struct cpusteer_config cfg;
	int err;

	err = instance_read_state(&c->in, &st);
	if (!err)
		err = instance_read_config(&c->in, &cfg);
	if (err) {
		log_err("cannot read the live configuration of %s", c->dir.shown);
		return -EIO;
	}
	state_get_cpus(&st, &c->cpus);
	*nbuckets = cfg.nbuckets;
	instance_read_table(&c->in, c->table, cfg.nbuckets);
	err = instance_read_bucket_loads(&c->in, c->cur, cfg.nbuckets);
	if (err)
		log_err("cannot read the bucket loads of %s: %s", c->dir.shown, strerror(-err));
	return err;
}

/* The reading just taken becomes where the next interval starts;
 * returns the seconds since the one before.
 */
static double swap_readings(struct balance_ctx *c)
{
	struct cpusteer_bucket_load *t = c->prev;
	struct timespec now;
	double seconds;

	clock_gettime(CLOCK_MONOTONIC, &now);
	seconds = (now.tv_sec - c->read_at.tv_sec) + (now.tv_nsec - c->read_at.tv_nsec) / 1e9;
	c->read_at = now;
	c->prev = c->cur;
	c->cur = t;
	return seconds;
}

/* Plans on the interval's packets and, unless --dry-run, writes the new
 * table. The lock is held from the reading to the write: a set in
 * between would make the plan one for a table that is gone.
 */
static int plan_and_apply(struct balance_ctx *c, struct step_result *r)
{
	struct balance_input bi = { .table = c->table, .load = c->load,
				    .cpus = &c->cpus, .threshold = c->threshold };
	__u32 nbuckets, b;
	int err;

	err = read_live(c, &nbuckets);
	if (err)
		return err;
	if (nbuckets != c->nbuckets) {
		/* Resized: the old counts belong to other hash ranges. */
		c->nbuckets = nbuckets;
		swap_readings(c);
		return -EAGAIN;
	}
	r->bytes = 0;
	for (b = 0; b < nbuckets; b++) {
		c->load[b] = c->cur[b].packets - c->prev[b].packets;
		r->bytes += c->cur[b].bytes - c->prev[b].bytes;
	}
	r->seconds = swap_readings(c);
	bi.nbuckets = nbuckets;
	bi.max_moves = moves_allowed(c, nbuckets);
	memset(&c->plan, 0, sizeof(c->plan));
	c->plan.moves = c->moves;
	err = bucket_balance_plan(&bi, c->new_table, &c->plan);
	if (err) {
		log_err("cannot plan the buckets of %s: %s", c->dir.shown, strerror(-err));
		return err;
	}
	r->quiet = c->plan.total < c->min_packets;
	if (r->quiet || !c->plan.nmoves || c->dry_run)
		return 0;
	err = change_table(&c->dir, &c->in, c->new_table, nbuckets);
	r->applied = !err;
	return err;
}

/* -ETIMEDOUT when another command held the lock too long: that step is
 * skipped, and the next one weighs both intervals.
 */
static int step_locked(struct balance_ctx *c, struct step_result *r)
{
	int err = lock_wait(c->dir.fd, LOCK_EX, c->dir.shown);

	if (err)
		return err == -EBUSY ? -ETIMEDOUT : err;
	err = still_there(c);
	if (!err)
		err = plan_and_apply(c, r);
	flock(c->dir.fd, LOCK_UN);
	return err;
}

/* Jain's index of the per-CPU load relative to each CPU's weight: 1 when
 * every CPU carries its share.
 */
static double fairness(const struct balance_ctx *c, const __u64 *per_cpu)
{
	double x[CPUSTEER_MAX_CPUS];
	size_t i, n = 0;

	for (i = 0; i < c->cpus.n; i++)
		if (c->cpus.weight[i])
			x[n++] = (double)per_cpu[i] / c->cpus.weight[i];
	return jain_index(x, n);
}

static void print_text(const struct balance_ctx *c, const struct step_result *r)
{
	const struct balance_plan *p = &c->plan;
	__u32 i;

	printf("%s step %u: %.2f s, %llu packets, %llu bytes", c->dir.shown, c->step, r->seconds,
	       (unsigned long long)p->total, (unsigned long long)r->bytes);
	if (r->quiet) {
		printf("; under --min-packets %u, nothing planned\n", c->min_packets);
		return;
	}
	printf("; peak %.3f of its share, Jain %.3f\n", p->peak_before,
	       fairness(c, p->before));
	for (i = 0; i < p->nmoves; i++)
		printf("  %s bucket %u: CPU %u -> CPU %u, %llu packets (%.1f%%)\n",
		       r->applied ? "moved" : "would move", p->moves[i].bucket, p->moves[i].from,
		       p->moves[i].to, (unsigned long long)p->moves[i].load,
		       100.0 * p->moves[i].load / p->total);
	if (p->nmoves)
		printf("  after: peak %.3f, Jain %.3f; %u of %u buckets moved (%.2f%% of flows)%s\n",
		       p->peak_after, fairness(c, p->after), p->nmoves, c->nbuckets,
		       100.0 * p->nmoves / c->nbuckets, c->dry_run ? ", --dry-run: not written" : "");
	else
		printf("  nothing moved: %s\n", balance_stop_name(p->stop));
}

static void json_cpus(struct json *j, const struct balance_ctx *c)
{
	__u32 i;

	json_array_open(j, "cpus");
	for (i = 0; i < c->cpus.n; i++) {
		json_object_open(j, NULL);
		json_uint(j, "cpu", c->cpus.cpu[i]);
		json_uint(j, "weight", c->cpus.weight[i]);
		json_uint(j, "packets_before", c->plan.before[i]);
		json_uint(j, "packets_after", c->plan.after[i]);
		json_object_close(j);
	}
	json_array_close(j);
}

static void print_json(const struct balance_ctx *c, const struct step_result *r)
{
	const struct balance_plan *p = &c->plan;
	struct json j;
	__u32 i;

	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "interface", c->dir.ifname);
	json_uint(&j, "step", c->step);
	json_double(&j, "seconds", r->seconds);
	json_uint(&j, "packets", p->total);
	json_uint(&j, "bytes", r->bytes);
	json_uint(&j, "buckets", c->nbuckets);
	json_bool(&j, "planned", !r->quiet);
	json_string(&j, "stop", r->quiet ? "min_packets" : balance_stop_name(p->stop));
	json_double(&j, "peak_before", p->peak_before);
	json_double(&j, "peak_after", r->quiet ? p->peak_before : p->peak_after);
	json_double(&j, "jain_before", fairness(c, p->before));
	json_double(&j, "jain_after", fairness(c, r->quiet ? p->before : p->after));
	json_bool(&j, "applied", r->applied);
	json_array_open(&j, "moves");
	for (i = 0; !r->quiet && i < p->nmoves; i++) {
		json_object_open(&j, NULL);
		json_uint(&j, "bucket", p->moves[i].bucket);
		json_uint(&j, "from", p->moves[i].from);
		json_uint(&j, "to", p->moves[i].to);
		json_uint(&j, "packets", p->moves[i].load);
		json_object_close(&j);
	}
	json_array_close(&j);
	json_cpus(&j, c);
	json_object_close(&j);
}

/* Sleeps until `deadline` moved on by `interval`; false when a stop
 * signal ended the sleep.
 */
static bool sleep_until(struct timespec *deadline, double interval)
{
	long ns = deadline->tv_nsec + (long)((interval - floor(interval)) * 1e9);
	struct timespec now, left;
	sigset_t set;

	deadline->tv_sec += (time_t)interval + ns / 1000000000L;
	deadline->tv_nsec = ns % 1000000000L;
	stop_signals_set(&set);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline->tv_sec - now.tv_sec;
		left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0)
			return true;
		if (sigtimedwait(&set, NULL, &left) > 0)
			return false;
		if (errno != EAGAIN && errno != EINTR)
			return true;
	}
}

/* The first reading starts the first interval; each step's reading
 * starts the next. A signal ends the sleep (exit status 0) or the wait
 * for the lock (-EINTR: exit status 130, that step not taken), never a
 * step: the table is the last one written whole.
 */
static int run(struct balance_ctx *c)
{
	struct timespec deadline;
	struct step_result r;
	int err;

	/* The first reading only sets where the counts start, as after a
	 * resize.
	 */
	err = step_locked(c, &r);
	if (err && err != -EAGAIN)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	while (!stop_requested() && sleep_until(&deadline, c->interval)) {
		memset(&r, 0, sizeof(r));
		err = step_locked(c, &r);
		if (err == -ETIMEDOUT)
			continue;
		if (err == -EAGAIN) {
			if (!c->json)
				printf("%s: the table changed size, to %u buckets: loads start again\n",
				       c->dir.shown, c->nbuckets);
			continue;
		}
		if (err)
			return err;
		c->step++;
		if (c->json)
			print_json(c, &r);
		else
			print_text(c, &r);
		fflush(stdout);
		if (c->once)
			break;
	}
	return 0;
}

static const struct cli_option balance_options[] = {
	CLI_SECONDS_OPTION("interval", "S", struct balance_ctx, interval, 3600,
			   "seconds of load each step weighs", "1"),
	CLI_FRACTION_OPTION("threshold", "R", struct balance_ctx, threshold, 10,
		   "how far above its share the busiest CPU may stay,\n"
		   "as a fraction: 0.1 is 10%", CLI_NUMBER(DEFAULT_THRESHOLD)),
	CLI_WHOLE_OPTION("max-moves", "N", struct balance_ctx, max_moves, 1, CPUSTEER_MAX_BUCKETS,
			 "buckets moved per step at most", "1% of the buckets, at least 1"),
	CLI_WHOLE_OPTION("min-packets", "N", struct balance_ctx, min_packets, 0, 0xffffffffu,
		   "plan nothing on an interval with fewer packets", CLI_NUMBER(DEFAULT_MIN_PACKETS)),
	CLI_FLAG("once", struct balance_ctx, once, "one step, then exit"),
	CLI_FLAG("dry-run", struct balance_ctx, dry_run, "print the moves, write nothing"),
	CLI_FLAG("json", struct balance_ctx, json, "one JSON object per step, one line each"),
	{}
};

static const struct balance_ctx balance_start = {
	.interval = 1, .threshold = DEFAULT_THRESHOLD, .min_packets = DEFAULT_MIN_PACKETS
};

const struct cli_command balance_command = {
	.name = "balance",
	.summary = "move buckets between CPUs by measured load",
	.operands = "IFACE",
	.about = "Every interval, reads how many packets each bucket carried (load\n"
		 "--bucket-stats) and moves the fewest buckets that bring the busiest CPU\n"
		 "within --threshold of its share by weight, through the path of set. Runs\n"
		 "until Ctrl-C or SIGTERM; the table stays as the last step wrote it.\n",
	.details = "A bucket holds about 1/buckets of the flows: each move sends them to\n"
		   "another CPU, and their packets in flight may be reordered once. A set\n"
		   "that changes CPUs, weights, the bucket count or the hash gives every\n"
		   "CPU its share of buckets back; any other set keeps the table.\n",
	.groups = { { balance_options, 0 } },
	.start = &balance_start,
	.run = cmd_balance,
};

int cmd_balance(int argc, char **argv)
{
	struct balance_ctx c = balance_start;
	sigset_t stop_set;
	int operand, err;

	err = cli_parse(&balance_command, argc, argv, &c, &operand);
	if (err)
		return cli_exit_status(err);
	if (ifname_check(argv[operand]))
		return EXIT_USAGE;
	if (require_root("balance"))
		return EXIT_FAILURE;
	err = instance_dir_init(&c.dir, argv[operand]);
	if (!err)
		err = bpffs_check();
	if (err)
		return exit_code(err);
	instance_init(&c.in);
	stop_signals_set(&stop_set);
	sigprocmask(SIG_BLOCK, &stop_set, NULL);
	err = open_instance(&c);
	if (!err)
		err = run(&c);
	free_buffers(&c);
	instance_close(&c.in);
	instance_dir_close(&c.dir);
	return exit_code(err);
}
