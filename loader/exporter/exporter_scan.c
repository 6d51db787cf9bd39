// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "exporter_scan.h"
#include "indirection.h"
#include "instance.h"
#include "instance_state.h"
#include "lock.h"
#include "log.h"
#include "netns.h"
#include "pin_tree.h"

/* An instance found at some scrape. Its tracer counts the events of one
 * cpumap (by id: a reload makes another) and one device (the ifindex in
 * the instance's namespace, 0 once the device is gone); when either
 * changes, it is made anew and its counts start again.
 */
struct followed {
	__u64 cookie;
	char shown[IFNAME_SHOWN_LEN];	/* the name, escaped for messages */
	bool seen;		/* its folder is there at this scrape */
	bool judged;		/* its record was read: m.health holds */
	bool readable;		/* and it was read whole */
	bool tracing;
	__u32 cpumap_id;
	int ifindex;
	struct tracer tracer;
	struct metrics_instance m;
};

/* The state folder, as far as a refusal goes. */
struct root_id {
	bool found;
	dev_t dev;
	ino_t ino;
	uid_t uid;
	mode_t mode;
};

struct scan {
	int ncpus;
	__u64 own_cookie;
	int own_ns;			/* this thread's network namespace */
	struct followed **f;		/* sorted by namespace, then name */
	size_t n, cap;
	const struct metrics_instance **out;
	__u32 skipped[SKIP_COUNT];
	double lock_budget_ns;		/* what this scrape may still wait */
	int refused;			/* why the last walk failed, or 0 */
	struct root_id refused_root;	/* the state folder it failed on */
	__u32 *table;			/* room for the largest bucket table */
	bool fatal;			/* stranded in another namespace */
	bool tracepoints;		/* attach them (scan_open) */
	struct trace_programs programs;	/* while an instance is followed */
	bool programs_open;
};

static void forget(struct followed *f)
{
	if (f->tracing)
		tracer_close(&f->tracer);
	sample_free(&f->m.sample);
	free(f);
}

void scan_close(struct scan *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		forget(s->f[i]);
	if (s->programs_open)
		trace_programs_close(&s->programs);
	free(s->f);
	free(s->out);
	free(s->table);
	if (s->own_ns >= 0)
		close(s->own_ns);
	free(s);
}

int scan_open(struct scan **out, bool tracepoints)
{
	struct scan *s = calloc(1, sizeof(*s));
	__u64 ino;
	int err;

	if (!s)
		return -ENOMEM;
	s->own_ns = -1;
	s->tracepoints = tracepoints;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		err = s->ncpus ? s->ncpus : -EINVAL;
		log_err("cannot count the possible CPUs: %s", strerror(-err));
		goto fail;
	}
	err = netns_self(&s->own_cookie, &ino);
	if (err)
		goto fail;
	s->own_ns = open(NETNS_SELF, O_RDONLY | O_CLOEXEC);
	s->table = calloc(CPUSTEER_MAX_BUCKETS, sizeof(*s->table));
	if (s->own_ns < 0 || !s->table) {
		err = s->own_ns < 0 ? -errno : -ENOMEM;
		log_err("exporter: cannot start: %s", strerror(-err));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	scan_close(s);
	return err;
}

static struct followed *follow(struct scan *s, __u64 cookie, const char *ifname)
{
	struct followed *f, **grown;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->f[i]->cookie == cookie && !strcmp(s->f[i]->m.interface, ifname))
			return s->f[i];
	if (s->n == s->cap) {
		grown = realloc(s->f, (s->cap * 2 + 4) * sizeof(*grown));
		if (!grown)
			return NULL;
		s->f = grown;
		s->cap = s->cap * 2 + 4;
	}
	f = calloc(1, sizeof(*f));
	if (!f || sample_alloc(&f->m.sample, s->ncpus)) {
		free(f);
		return NULL;
	}
	f->cookie = cookie;
	log_printable(ifname, f->shown, sizeof(f->shown));
	f->m.netns_cookie = cookie;
	snprintf(f->m.interface, sizeof(f->m.interface), "%s", ifname);
	s->f[s->n++] = f;
	return f;
}

/* Moves this thread into the instance's network namespace, where its
 * ifindex means something; true when it is there (or was already). A
 * namespace that cannot be found or entered is gone, or going: its
 * device is gone with it.
 */
static bool enter_netns(const struct scan *s, const struct followed *f)
{
	char path[300];
	int fd;

	if (f->cookie == s->own_cookie)
		return true;
	fd = netns_locate(f->cookie, f->m.st.netns_ino, path, sizeof(path)) ? -1
		: open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

/* Back to the exporter's own namespace after enter_netns() entered the
 * instance's; -ENOTRECOVERABLE when that fails (the process must stop).
 */
static int leave_netns(struct scan *s, const struct followed *f, bool entered)
{
	if (!entered || f->cookie == s->own_cookie || !setns(s->own_ns, CLONE_NEWNET))
		return 0;
	log_err("exporter: cannot return to its own network namespace: %s", strerror(errno));
	s->fatal = true;
	return -ENOTRECOVERABLE;
}

/* The instance judged as status judges it (its record, NULL when
 * unreadable with `record_err`, and the instance opened from its pins, or
 * NULL), from inside its network namespace; whether its interface is
 * there comes with it.
 */
static int judge_in_netns(struct scan *s, struct followed *f, int record_err,
			  struct steer_instance *in)
{
	bool entered = enter_netns(s, f);

	instance_health_judge(record_err ? NULL : &f->m.st, record_err, in, entered, &f->m.health);
	f->m.present = f->m.health.device_here;
	f->judged = true;
	return leave_netns(s, f, entered);
}

/* The tracepoint programs, shared by every instance, are there while an
 * instance is; each instance has a tracer of its own in them.
 */
static bool programs_ready(struct scan *s)
{
	int err;

	if (!s->programs_open) {
		err = trace_programs_open(&s->programs);
		if (err)
			log_err("cannot set up the tracepoints: %s", strerror(-err));
		s->programs_open = !err;
	}
	return s->programs_open;
}

/* A tracer for the instance's cpumap and device, made anew when either
 * changed. A failure costs only its tracepoint series.
 */
static void trace(struct scan *s, struct followed *f, __u32 cpumap_id)
{
	int ifindex = f->m.present ? (int)f->m.st.ifindex : 0, err;

	if (f->tracing && f->cpumap_id == cpumap_id && f->ifindex == ifindex)
		return;
	if (f->tracing)
		tracer_close(&f->tracer);
	f->tracing = false;
	if (!s->tracepoints || !programs_ready(s))
		return;
	f->cpumap_id = cpumap_id;
	f->ifindex = ifindex;
	err = tracer_open(&f->tracer, &s->programs, cpumap_id, f->m.st.netns_ino, ifindex);
	f->tracing = !err;
	if (err)
		log_err("cannot set up the tracepoints for %s: %s", f->shown, strerror(-err));
	else
		log_debug("tracepoints counting for %s in network namespace %llu", f->shown,
			  (unsigned long long)f->cookie);
}

static void count_buckets(struct scan *s, const struct steer_instance *in,
			  struct metrics_instance *m)
{
	state_get_cpus(&m->st, &m->cpus);
	memset(m->buckets, 0, sizeof(m->buckets));
	if (m->cfg.nbuckets > CPUSTEER_MAX_BUCKETS)
		return;
	instance_read_table(in, s->table, m->cfg.nbuckets);
	indirection_count(s->table, m->cfg.nbuckets, &m->cpus, m->buckets);
}

static int read_pinned(struct scan *s, struct followed *f, struct steer_instance *in)
{
	__u32 cpumap_id = instance_cpumap_id(in);
	int tp, err;

	trace(s, f, cpumap_id);
	if (cpumap_threads_find(cpumap_id, &f->m.threads))
		f->m.threads.n = 0;
	for (tp = 0; tp < TP_COUNT; tp++)
		f->m.traced[tp] = f->tracing && f->tracer.attached[tp];
	err = instance_read_config(in, &f->m.cfg);
	if (err)
		return err;
	count_buckets(s, in, &f->m);
	return sample_read(&f->tracer, in, &f->m.sample);
}

/* A command holds an instance's lock while it changes it: `set` for
 * milliseconds, `load` and `unload` for up to seconds. A scrape waits a
 * little for the first and not for the second, which would hold up the
 * whole scrape: Prometheus gives up on a scrape after 10 s, losing the
 * series of every instance. The budget bounds the waits of one scrape
 * together, however many instances are busy.
 */
#define LOCK_WAIT_EACH_NS 100e6
#define LOCK_WAIT_BUDGET_NS 500e6

/* The shared lock of the open folder `d`, within what is left of the
 * scrape's budget; -ENOENT when an unload removed the folder meanwhile.
 */
static int lock_instance(struct scan *s, struct instance_dir *d)
{
	double start = monotonic_ns();
	double wait = s->lock_budget_ns < LOCK_WAIT_EACH_NS ? s->lock_budget_ns : LOCK_WAIT_EACH_NS;
	int err = lock_try(d->fd, LOCK_SH, wait / 1e9);

	s->lock_budget_ns -= monotonic_ns() - start;
	if (s->lock_budget_ns < 0)
		s->lock_budget_ns = 0;
	if (!err && !instance_dir_current(d))
		err = -ENOENT;
	return err;
}

/* The instance in the open, locked folder: judged as status judges it
 * whenever its record can be read, and read whole when it is in service.
 * 0, or -ENOENT when there is no instance (a load that has not made its
 * record yet), or another negative errno and why it is not exported.
 */
static int judge_and_read(struct scan *s, struct followed *f, const struct instance_dir *d,
			  enum metrics_skip *why)
{
	struct steer_instance in;
	bool opened;
	int err;

	err = instance_read_record(d->fd, &f->m.st);
	if (err == -ENOENT)
		return err;
	/* Quietly: the health series say what a missing pin means. */
	opened = !err && !instance_open_pinned(&in, d->fd, NULL);
	if (judge_in_netns(s, f, err, opened ? &in : NULL)) {
		if (opened)
			instance_close(&in);
		return -ENOTRECOVERABLE;
	}
	if (!err && !state_in_service(f->m.st.phase)) {
		*why = SKIP_NOT_READY;
		err = -EAGAIN;
	} else if (!err && !opened) {
		err = -EIO;
	}
	if (!err)
		err = read_pinned(s, f, &in);
	if (opened)
		instance_close(&in);
	return err;
}

/* 0, or -ENOENT when there is no instance (unloaded, or a load that has
 * not made its record yet), or another negative errno and why it is
 * skipped.
 */
static int read_instance(struct scan *s, struct followed *f, enum metrics_skip *why)
{
	struct instance_dir d;
	int err;

	*why = SKIP_UNREADABLE;
	instance_dir_init_in(&d, f->m.interface, f->cookie, 0);
	err = instance_dir_open(&d, 0);
	if (err)
		return err;
	err = lock_instance(s, &d);
	if (err == -EBUSY)
		*why = SKIP_LOCKED;
	if (!err)
		err = judge_and_read(s, f, &d, why);
	instance_dir_close(&d);
	return err;
}

static int visit(__u64 cookie, const char *ifname, void *arg)
{
	struct scan *s = arg;
	struct followed *f = follow(s, cookie, ifname);
	enum metrics_skip why;
	int err;

	if (!f) {
		s->skipped[SKIP_UNREADABLE]++;
		return 0;
	}
	err = read_instance(s, f, &why);
	f->seen = err != -ENOENT;
	f->readable = !err;
	if (err && err != -ENOENT)
		s->skipped[why]++;
	return s->fatal ? -ENOTRECOVERABLE : 0;
}

static int by_place(const void *a, const void *b)
{
	const struct followed *x = *(const struct followed *const *)a;
	const struct followed *y = *(const struct followed *const *)b;

	if (x->cookie != y->cookie)
		return x->cookie < y->cookie ? -1 : 1;
	return strcmp(x->m.interface, y->m.interface);
}

static struct root_id root_id_now(void)
{
	struct root_id r = { 0 };
	struct stat sb;

	if (!lstat(CPUSTEER_PIN_ROOT, &sb)) {
		r.found = true;
		r.dev = sb.st_dev;
		r.ino = sb.st_ino;
		r.uid = sb.st_uid;
		r.mode = sb.st_mode;
	}
	return r;
}

static bool same_root(const struct root_id *a, const struct root_id *b)
{
	return a->found && b->found && a->dev == b->dev && a->ino == b->ino &&
	       a->uid == b->uid && a->mode == b->mode;
}

/* Walks the pin tree, unless the state folder is the very one a walk
 * refused before (the same folder, owner and mode): the refusal then
 * stands, and its line (pin_tree.h) is not printed again at every scrape.
 * The folder is looked at before the walk, so that one changed during
 * the walk is walked again at the next scrape.
 */
static int walk(struct scan *s)
{
	struct root_id now = root_id_now();
	int err;

	if (s->refused && same_root(&now, &s->refused_root))
		return s->refused;
	err = pin_tree_walk(visit, s);
	s->refused = err == -ENOTRECOVERABLE ? 0 : err;
	s->refused_root = now;
	return err;
}

/* The reason label of a state folder the walk could not use. */
static const char *state_dir_problem(int err)
{
	if (!err)
		return NULL;
	return err == -EPERM || err == -ENOTDIR ? "refused" : "unreadable";
}

int scan_update(struct scan *s, struct metrics_scrape *out)
{
	const struct metrics_instance **list;
	size_t i, kept = 0;
	int err;

	for (i = 0; i < s->n; i++)
		s->f[i]->seen = s->f[i]->judged = s->f[i]->readable = false;
	memset(s->skipped, 0, sizeof(s->skipped));
	s->lock_budget_ns = LOCK_WAIT_BUDGET_NS;
	/* A state folder refused or unreadable costs the instances it holds,
	 * not the scrape: the rest is exported, and says why.
	 */
	err = walk(s);
	if (err == -ENOTRECOVERABLE)
		return err;
	for (i = 0; i < s->n; i++) {
		if (s->f[i]->seen)
			s->f[kept++] = s->f[i];
		else
			forget(s->f[i]);
	}
	s->n = kept;
	/* No instance left: no program runs at the events for nothing. */
	if (!s->n && s->programs_open) {
		trace_programs_close(&s->programs);
		s->programs_open = false;
	}
	qsort(s->f, s->n, sizeof(*s->f), by_place);
	/* The exported ones first, then every judged one. */
	list = realloc(s->out, (2 * s->n + 1) * sizeof(*list));
	if (!list) {
		log_err("exporter: out of memory");
		return -ENOMEM;
	}
	s->out = list;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->n; i++)
		if (s->f[i]->readable)
			list[out->n++] = &s->f[i]->m;
	out->in = list;
	out->judged = list + out->n;
	for (i = 0; i < s->n; i++)
		if (s->f[i]->judged)
			list[out->n + out->njudged++] = &s->f[i]->m;
	out->ncpus = s->ncpus;
	memcpy(out->skipped, s->skipped, sizeof(out->skipped));
	out->state_dir_problem = state_dir_problem(err);
	return 0;
}
