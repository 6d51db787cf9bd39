// SPDX-License-Identifier: GPL-2.0
/* The receiver's counts as figures (see observer.h): snapshots of every
 * counter, and the differences between two of them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "host_counters.h"
#include "instance.h"
#include "pin_tree.h"
#include "sample.h"
#include "observer.h"
#include "stats_math.h"
#include "trace.h"

struct snapshot {
	double t;
	__u64 dev_rx, dev_drop;
	__u64 ipi_call, ipi_resched;
	__u64 run_ns, run_cnt;
	struct softnet_counts sn;
	struct stats_sample s;		/* steering counters and tracepoints */
};

struct observer {
	int ncpus;
	int netdev_fd;
	char ifname[IF_NAMESIZE];
	bool steering;			/* cpusteer is loaded on ifname */
	bool traced;			/* a cpumap's tracepoints are counted */
	struct steer_instance in;
	struct trace_programs programs;
	struct tracer tracer;
	int prog_fd;			/* the program whose run time holds ours */
	struct snapshot first, prev, cur;
	struct stats_sample delta;
};

/* ---- setting up ---- */

static void observer_free_samples(struct observer *ob)
{
	sample_free(&ob->first.s);
	sample_free(&ob->prev.s);
	sample_free(&ob->cur.s);
	sample_free(&ob->delta);
}

void observer_free(struct observer *ob)
{
	if (!ob)
		return;
	observer_free_samples(ob);
	tracer_close(&ob->tracer);
	trace_programs_close(&ob->programs);
	instance_close(&ob->in);
	if (ob->prog_fd >= 0)
		close(ob->prog_fd);
	if (ob->netdev_fd >= 0)
		close(ob->netdev_fd);
	free(ob);
}

/* The cpumap tracepoints filter on the map id, not on a device: they
 * count for whichever program redirects through `cpumap_id`, cpusteer or
 * another.
 */
static int observer_trace(struct observer *ob, __u32 cpumap_id)
{
	int err, n;

	err = trace_programs_open(&ob->programs);
	if (!err)
		err = tracer_open(&ob->tracer, &ob->programs, cpumap_id, 0, 0);
	if (err)
		return err;
	ob->traced = true;
	n = ob->tracer.ncpus;
	if (sample_alloc(&ob->first.s, n) || sample_alloc(&ob->prev.s, n) ||
	    sample_alloc(&ob->cur.s, n) || sample_alloc(&ob->delta, n))
		return -ENOMEM;
	return 0;
}

/* The instance's pins are the host's (cpusteer runs in the namespace with
 * only the network namespace changed), so they open from here.
 */
static int observer_attach_steering(struct observer *ob, const struct instance_dir *steering)
{
	struct cpusteer_instance_state st;
	struct instance_dir d = *steering;
	int err;

	d.fd = -1;
	err = instance_dir_open(&d, 0);
	if (!err)
		err = instance_open_pinned(&ob->in, d.fd, d.shown);
	instance_dir_close(&d);
	if (err)
		return err;
	if (!instance_read_state(&ob->in, &st))
		ob->prog_fd = open_run_time_prog(st.prog_id);
	return observer_trace(ob, instance_cpumap_id(&ob->in));
}

struct observer *observer_new(int ncpus, const char *ifname, int netdev_fd,
			      const struct instance_dir *steering)
{
	struct observer *ob = calloc(1, sizeof(*ob));

	if (!ob) {
		if (netdev_fd >= 0)
			close(netdev_fd);
		return NULL;
	}
	ob->ncpus = ncpus;
	ob->netdev_fd = netdev_fd;
	ob->prog_fd = -1;
	ob->steering = steering;
	instance_init(&ob->in);
	snprintf(ob->ifname, sizeof(ob->ifname), "%s", ifname);
	if (steering && observer_attach_steering(ob, steering)) {
		observer_free(ob);
		return NULL;
	}
	return ob;
}

struct observer *observer_of_testbed(const struct testbed *b, bool steering)
{
	struct instance_dir d;
	int netdev;

	if (steering && testbed_instance_dir(b, &d))
		return NULL;
	netdev = testbed_netdev_fd(b);
	return netdev < 0 ? NULL
			  : observer_new(b->ncpus, b->topo.rx_if, netdev, steering ? &d : NULL);
}

struct observer *observer_of_cpumap(const struct testbed *b, __u32 prog_id, __u32 cpumap_id)
{
	struct observer *ob = observer_new(b->ncpus, b->topo.rx_if, testbed_netdev_fd(b), NULL);

	if (!ob)
		return NULL;
	ob->prog_fd = open_run_time_prog(prog_id);
	if (observer_trace(ob, cpumap_id)) {
		observer_free(ob);
		return NULL;
	}
	return ob;
}

/* ---- snapshots and their differences ---- */

static int observer_read(struct observer *ob, struct snapshot *s)
{
	int err = 0;

	s->t = bench_now();
	if (ob->netdev_fd >= 0 &&
	    read_netdev_rx(ob->netdev_fd, ob->ifname, &s->dev_rx, &s->dev_drop))
		s->dev_rx = s->dev_drop = 0;
	read_ipi_counts(&s->ipi_call, &s->ipi_resched);
	read_softnet_counts(&s->sn);
	read_prog_run_time(ob->prog_fd, &s->run_ns, &s->run_cnt);
	if (ob->traced)
		err = sample_read(&ob->tracer, ob->steering ? &ob->in : NULL, &s->s);
	return err;
}

int observer_mark(struct observer *ob)
{
	int err = observer_read(ob, &ob->first);

	if (!err)
		err = observer_read(ob, &ob->prev);
	return err;
}

static double delta_of(__u64 b, __u64 a)
{
	return (double)(b - a);
}

/* What the cpumap's tracepoints counted: the frames offered to each
 * target CPU's queue (the program's split, whichever program it is),
 * those a full queue refused, and those each target's kthread took, the
 * delivered ones. The steering program's own counters, where it is
 * cpusteer, then give what it received and redirected.
 */
static void cpumap_figures(struct observer *ob, const struct snapshot *a,
			   const struct snapshot *b, struct bench_figures *f)
{
	int n = ob->tracer.ncpus, cpu, to;

	sample_diff(&ob->delta, &b->s, &a->s, n);
	f->queue_drops = f->delivered = 0;
	for (cpu = 0; cpu < n; cpu++) {
		for (to = 0; to < n && to < BENCH_MAX_CPUS; to++) {
			f->redirected[to] += ob->steering
				? ob->delta.redirected[(size_t)cpu * n + to]
				: ob->delta.enqueue[cpu * n + to].processed;
			f->queue_drops += ob->delta.enqueue[cpu * n + to].drops;
		}
		if (cpu < BENCH_MAX_CPUS)
			f->kthread[cpu] = ob->delta.kthread[cpu].processed;
		f->delivered += ob->delta.kthread[cpu].processed;
	}
	if (!ob->tracer.attached[TP_CPUMAP_ENQUEUE])
		f->queue_drops = NAN;
	if (!ob->tracer.attached[TP_CPUMAP_KTHREAD])
		f->delivered = NAN;
	if (!ob->steering)
		return;
	f->received = 0;
	for (cpu = 0; cpu < n; cpu++)
		f->received += ob->delta.rx[cpu].rx_packets;
}

/* Through a cpumap: the split the program chose. Otherwise the CPUs
 * whose stack took the packets (RPS targets included).
 */
static double cpu_load(const struct observer *ob, const struct bench_figures *f, int cpu)
{
	return ob->traced ? f->redirected[cpu] : f->softnet_processed[cpu];
}

void bench_figures_rates(struct bench_figures *f)
{
	f->mpps = f->seconds > 0 ? f->received / f->seconds / 1e6 : NAN;
	f->delivered_mpps = f->seconds > 0 ? f->delivered / f->seconds / 1e6 : NAN;
}

static void figures_between(struct observer *ob, const struct snapshot *a,
			    const struct snapshot *b, struct bench_figures *f)
{
	double load[BENCH_MAX_CPUS];
	int cpu, n = ob->ncpus;

	memset(f, 0, sizeof(*f));
	f->seconds = b->t - a->t;
	f->sent = f->gbps = f->bpf_ns = f->queue_drops = f->delivered = f->peer_counted = NAN;
	f->received = delta_of(b->dev_rx, a->dev_rx);
	f->dropped = delta_of(b->dev_drop, a->dev_drop);
	f->ipi_call = delta_of(b->ipi_call, a->ipi_call);
	f->ipi_resched = delta_of(b->ipi_resched, a->ipi_resched);
	for (cpu = 0; cpu < n; cpu++) {
		f->softnet_processed[cpu] = delta_of(b->sn.processed[cpu], a->sn.processed[cpu]);
		f->softnet_dropped[cpu] = delta_of(b->sn.dropped[cpu], a->sn.dropped[cpu]);
		f->softnet_squeeze[cpu] = delta_of(b->sn.squeeze[cpu], a->sn.squeeze[cpu]);
	}
	if (b->run_cnt > a->run_cnt)
		f->bpf_ns = delta_of(b->run_ns, a->run_ns) / delta_of(b->run_cnt, a->run_cnt);
	/* With XDP the device counts the frames the program ran on, and
	 * its drops are frames its ring refused before that.
	 */
	if (ob->traced)
		cpumap_figures(ob, a, b, f);
	else
		/* Without XDP the device counts a frame received before the
		 * stack's backlog can drop it (the RPS case), so its drops
		 * are part of its received count; take them out, so that
		 * sent = received + dropped holds for both paths.
		 */
		f->received -= f->dropped;
	for (cpu = 0; cpu < n; cpu++)
		load[cpu] = cpu_load(ob, f, cpu);
	f->jain = jain_index(load, n);
	bench_figures_rates(f);
}

int observer_figures(struct observer *ob, struct bench_figures *f)
{
	int err = observer_read(ob, &ob->cur);

	if (!err)
		figures_between(ob, &ob->first, &ob->cur, f);
	return err;
}

/* Frames still in the veth ring or a cpumap queue when the sender stops
 * are counted a moment later; wait until the counts hold still.
 */
static void settle(struct observer *ob)
{
	__u64 last = ~0ULL, now;
	int i, cpu;

	for (i = 0; i < 50; i++) {
		if (observer_read(ob, &ob->cur))
			return;
		now = ob->cur.dev_rx + ob->cur.dev_drop;
		for (cpu = 0; ob->traced && cpu < ob->tracer.ncpus; cpu++)
			now += ob->cur.s.rx[cpu].rx_packets + ob->cur.s.kthread[cpu].processed;
		if (now == last)
			return;
		last = now;
		bench_sleep(0.03);
	}
}

void observer_final_figures(struct observer *ob, struct bench_figures *f)
{
	settle(ob);
	figures_between(ob, &ob->first, &ob->cur, f);
}

/* ---- the live lines ---- */

static void swap_snapshots(struct snapshot *a, struct snapshot *b)
{
	struct snapshot t = *a;

	*a = *b;
	*b = t;
}

/* The second since the last line, then that snapshot becomes `prev`. */
static void print_live(struct observer *ob, const char *label, int sec)
{
	struct bench_figures f;
	int cpu, shown = 0;

	if (observer_read(ob, &ob->cur))
		return;
	figures_between(ob, &ob->prev, &ob->cur, &f);
	printf("  %-40s %3ds %8.3f Mpps  %s", label, sec, f.mpps,
	       ob->traced ? "redirected" : "stack");
	for (cpu = 0; cpu < ob->ncpus && shown < 16; cpu++, shown++)
		printf(" cpu%d %.3f", cpu, cpu_load(ob, &f, cpu) / f.seconds / 1e6);
	if (ob->traced && isfinite(f.queue_drops) && f.queue_drops)
		printf("  qdrop %.0f/s", f.queue_drops / f.seconds);
	if (f.dropped)
		printf("  ring-drop %.0f/s", f.dropped / f.seconds);
	putchar('\n');
	fflush(stdout);
	swap_snapshots(&ob->prev, &ob->cur);
}

static bool watch_done(struct watch_until *u)
{
	if (u->g)
		return generator_done(u->g);
	if (u->pid > 0)
		return waitpid(u->pid, &u->status, WNOHANG) == u->pid;
	return bench_now() >= u->end;
}

int observer_watch(struct observer *ob, const char *label, struct watch_until *u)
{
	double next = ob->prev.t + 1;
	int sec = 0;

	/* The tick before the end test, so a deadline on a whole second
	 * still gets its line.
	 */
	for (;;) {
		if (bench_stop)
			return -EINTR;
		if (bench_now() >= next) {
			print_live(ob, label, ++sec);
			next += 1;
		}
		if (watch_done(u))
			return 0;
		bench_sleep(0.02);
	}
}
