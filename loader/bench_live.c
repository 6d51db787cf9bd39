// SPDX-License-Identifier: GPL-2.0
/* cpusteer bench (throughput): traffic from the live-frames generator, or
 * iperf3, through a veth into a namespace where cpusteer (or RPS, or
 * nothing) receives it; each case measured several times, medians and
 * run-by-run ratios to a baseline reported.
 *
 * cpusteer is driven through its own CLI inside the namespace, as an
 * operator would; this file only reads what the receiver counted: the
 * steering program's per-CPU counters and the cpumap tracepoints
 * (loader/trace.c), the namespace's /proc/net/dev, the system's softnet
 * and IPI counters, and the steering program's BPF run-time statistics.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench_live.h"
#include "bench_report.h"
#include "cpuset.h"
#include "instance.h"
#include "log.h"
#include "stats_math.h"
#include "trace.h"

volatile int bench_stop;

static const char *const scenario_names[SC_COUNT] = {
	[SC_STEERING_COST] = "steering-cost",
	[SC_REMOTE_ACTIONS] = "remote-actions",
	[SC_CPUMAP_VS_RPS] = "cpumap-vs-rps",
	[SC_TCP] = "tcp",
	[SC_EXTERNAL] = "external",
};

const char *bench_scenario_name(enum bench_scenario sc)
{
	return sc < SC_COUNT ? scenario_names[sc] : "unknown";
}

double bench_headline(const struct bench_case *c, const struct bench_figures *f)
{
	return c->tcp ? f->gbps : f->mpps;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Short slices, so Ctrl-C is noticed within 50 ms wherever we wait. */
int bench_sleep(double seconds)
{
	double end = bench_now() + seconds, left;
	struct timespec ts;

	while (!bench_stop && (left = end - bench_now()) > 0) {
		if (left > 0.05)
			left = 0.05;
		ts.tv_sec = 0;
		ts.tv_nsec = left * 1e9;
		nanosleep(&ts, NULL);
	}
	return bench_stop ? -EINTR : 0;
}

/* ---- the test bed ---- */

static void on_stop_signal(int sig)
{
	(void)sig;
	bench_stop = 1;
}

/* Replaces topology's own hooks (which remove the namespace at once):
 * the run must unload cpusteer first, so a signal only asks it to stop.
 * No SA_RESTART: waits end early and see the flag.
 */
static void take_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Children started while these are blocked inherit the mask: a Ctrl-C
 * that the terminal sends to the whole process group then cannot kill a
 * `cpusteer load` half way; the parent sees the signal once it unblocks.
 */
static void block_stop_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Runs a command in the host namespace, output kept back and shown
 * (its first kilobyte) only when it fails. Stop signals wait until it is
 * done, as in testbed_cli.
 */
static int run_host(char *const argv[])
{
	char out[1024], spill[512];
	int pipefd[2], status;
	size_t got = 0;
	sigset_t old;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	block_stop_signals(&old);
	pid = fork();
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (pid > 0 && (n = read(pipefd[0], got + 1 < sizeof(out) ? out + got : spill,
				     got + 1 < sizeof(out) ? sizeof(out) - 1 - got : sizeof(spill))) > 0)
		if (got + 1 < sizeof(out))
			got += n;
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 127 << 8;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (got && out[got - 1] == '\n')
		got--;
	out[got] = '\0';
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (status)
		log_err("%s %s failed (status %d): %s", argv[0], argv[1], status, out);
	return status ? -EIO : 0;
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		log_debug("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

static void format_mac(const __u8 *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* Permanent neighbour entries both ways: without them the receiver's
 * stack, answering passed traffic, would ARP for the sender, and the
 * reply would be a frame nobody generated among the counted ones.
 */
static int static_neighbours(struct testbed *b)
{
	char tx_mac[18], rx_mac[18];
	char *host[] = { "ip", "neigh", "replace", "10.201.0.2", "lladdr", rx_mac, "dev",
			 b->topo.tx_if, "nud", "permanent", NULL };
	char *ns[] = { "ip", "-n", b->topo.netns, "neigh", "replace", "10.201.0.1", "lladdr",
		       tx_mac, "dev", b->topo.rx_if, "nud", "permanent", NULL };

	format_mac(b->topo.tx_mac, tx_mac, sizeof(tx_mac));
	format_mac(b->topo.rx_mac, rx_mac, sizeof(rx_mac));
	return run_host(host) ?: run_host(ns);
}

int testbed_open(struct testbed *b)
{
	struct cpuset online;
	char path[128];
	int err;

	memset(b, 0, sizeof(*b));
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0)
		return b->ncpus ? b->ncpus : -EINVAL;
	if (b->ncpus > BENCH_MAX_CPUS)
		b->ncpus = BENCH_MAX_CPUS;
	err = cpuset_online(&online);
	if (err)
		return err;
	cpuset_format(&online, b->cpus, sizeof(b->cpus));
	err = topology_create(&b->topo);
	if (err)
		return err;
	b->have_topo = true;
	take_signals();
	/* The sender's IPv6 autoconfiguration (router solicitations, MLD)
	 * would add frames nobody generated to the receiver's counts.
	 */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", b->topo.tx_if);
	write_text(path, "1");
	err = static_neighbours(b);
	return bench_stop ? -EINTR : err;
}

int testbed_cli(struct testbed *b, char *const args[], double *ms)
{
	char *argv[24], out[4096];
	sigset_t old;
	double t0;
	int i, rc;

	argv[0] = (char *)self_exe();
	for (i = 0; args[i] && i < 22; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	block_stop_signals(&old);
	t0 = bench_now();
	rc = topology_run_in_ns(&b->topo, argv, out, sizeof(out));
	if (ms)
		*ms = (bench_now() - t0) * 1e3;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		fputs(out, stderr);
		log_err("cpusteer %s %s in namespace %s failed (status %d)", args[0],
			args[1] ? args[1] : "", b->topo.netns, rc);
	}
	return rc;
}

void testbed_close(struct testbed *b)
{
	char *unload[] = { "unload", b->topo.rx_if, NULL };

	if (!b->have_topo)
		return;
	if (instance_is_pinned(b->topo.rx_if))
		testbed_cli(b, unload, NULL);
	topology_destroy(&b->topo);
	b->have_topo = false;
}

/* ---- the generator thread ---- */

static void *generator_main(void *arg)
{
	struct generator *g = arg;

	g->err = trafficgen_run(&g->opts, &g->stop, &g->res);
	/* Release: whoever sees done also sees err and res. */
	__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int generator_start(struct generator *g, const struct testbed *b, __u32 flows, int cpu,
		    double seconds)
{
	sigset_t old;
	int err;

	memset(g, 0, sizeof(*g));
	g->opts.ifindex = b->topo.tx_ifindex;
	g->opts.src_mac = b->topo.tx_mac;
	g->opts.dst_mac = b->topo.rx_mac;
	g->opts.family = 4;
	g->opts.proto = IPPROTO_UDP;
	g->opts.flows = flows;
	g->opts.frame_size = trafficgen_min_frame_size(4, IPPROTO_UDP);
	g->opts.duration_s = seconds;
	g->opts.cpu = cpu;
	/* Signals go to the main thread, which owns the cleanup. */
	block_stop_signals(&old);
	err = pthread_create(&g->thread, NULL, generator_main, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		log_err("cannot start the traffic generator thread: %s", strerror(err));
		return -err;
	}
	g->running = true;
	return 0;
}

bool generator_done(struct generator *g)
{
	return __atomic_load_n(&g->done, __ATOMIC_ACQUIRE);
}

int generator_stop(struct generator *g)
{
	if (!g->running)
		return 0;
	g->stop = 1;
	pthread_join(g->thread, NULL);
	g->running = false;
	return g->err;
}

/* ---- system counters ---- */

/* Sums a /proc/interrupts row (CAL, RES) over every CPU column. */
static void read_ipis(__u64 *call, __u64 *resched)
{
	char *line = NULL, *p, *end;
	size_t cap = 0;
	__u64 *dst;
	FILE *f = fopen("/proc/interrupts", "re");

	*call = *resched = 0;
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		p = line + strspn(line, " ");
		if (!strncmp(p, "CAL:", 4))
			dst = call;
		else if (!strncmp(p, "RES:", 4))
			dst = resched;
		else
			continue;
		for (p += 4;; p = end) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			*dst += v;
		}
	}
	free(line);
	fclose(f);
}

struct softnet {
	__u64 processed[BENCH_MAX_CPUS], dropped[BENCH_MAX_CPUS], squeeze[BENCH_MAX_CPUS];
};

/* /proc/net/softnet_stat: one line per online CPU, hex columns; the
 * 13th column names the CPU on kernels that have it (offline CPUs leave
 * no line, so the line number alone can be wrong).
 */
static void read_softnet(struct softnet *s)
{
	unsigned int col[16];
	char line[512];
	int n, cpu = 0;
	FILE *f = fopen("/proc/net/softnet_stat", "re");

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	for (; fgets(line, sizeof(line), f); cpu++) {
		n = sscanf(line, "%x %x %x %x %x %x %x %x %x %x %x %x %x", &col[0], &col[1],
			   &col[2], &col[3], &col[4], &col[5], &col[6], &col[7], &col[8],
			   &col[9], &col[10], &col[11], &col[12]);
		if (n >= 13)
			cpu = col[12];
		if (n < 3 || cpu >= BENCH_MAX_CPUS)
			continue;
		s->processed[cpu] = col[0];
		s->dropped[cpu] = col[1];
		s->squeeze[cpu] = col[2];
	}
	fclose(f);
}

/* rx_packets and rx_dropped of IFNAME from an open /proc/net/dev. A veth
 * counts there the frames its NAPI took and, as rx_dropped, the ones its
 * ring refused.
 */
static int read_netdev(int fd, const char *ifname, __u64 *rx, __u64 *drop)
{
	static char buf[65536];
	size_t len = strlen(ifname), got = 0;
	unsigned long long bytes, pkts, errs, drops;
	char *p;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p += strspn(p, " ");
		if (strncmp(p, ifname, len) || p[len] != ':')
			continue;
		if (sscanf(p + len + 1, "%llu %llu %llu %llu", &bytes, &pkts, &errs, &drops) != 4)
			return -EINVAL;
		*rx = pkts;
		*drop = drops;
		return 0;
	}
	return -ENODEV;
}

/* /proc/net/dev of the receiving namespace: opened from inside, the file
 * keeps showing that namespace after we return to ours.
 */
int testbed_netdev_fd(const struct testbed *b)
{
	int fd, err = topology_enter(&b->topo);

	if (err)
		return err;
	fd = open("/proc/thread-self/net/dev", O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : fd;
	topology_leave();
	return err;
}

static void read_prog_stats(int fd, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	*ns = *cnt = 0;
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len)) {
		*ns = info.run_time_ns;
		*cnt = info.run_cnt;
	}
}

/* ---- kernel log ---- */

/* Positioned at the end, so only what the run provokes is read. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* TAG ("BUG:") as a word of its own: "DEBUGCTL" is not a BUG. */
static bool has_tag(const char *msg, const char *tag)
{
	const char *p;

	for (p = strstr(msg, tag); p; p = strstr(p + 1, tag))
		if (p == msg || !isalnum((unsigned char)p[-1]))
			return true;
	return false;
}

/* The kernel's own words: "rcu: INFO: rcu_sched self-detected stall",
 * "... detected stalls on CPUs/tasks", "WARNING: CPU: 1 PID: ...",
 * "BUG: soft lockup", "kernel BUG at ...". A looser match catches the
 * boot command line (rcupdate.rcu_cpu_stall_...) and DEBUGCTL.
 */
static bool kmsg_alarming(const char *msg)
{
	return (strstr(msg, "rcu") && strstr(msg, "detected stall")) ||
	       has_tag(msg, "WARNING:") || has_tag(msg, "BUG:") || strstr(msg, "kernel BUG at");
}

/* Each read returns one record, "prio,seq,usec,flags;text\n"; EPIPE
 * means records were overwritten before we read them, and reading goes on.
 */
static void kmsg_scan(int fd, struct bench_result *r)
{
	char rec[2048], *text, *nl;
	ssize_t n;

	r->kmsg_readable = fd >= 0;
	if (fd < 0)
		return;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		if (!kmsg_alarming(text))
			continue;
		if (r->kmsg_matches < BENCH_KMSG_KEEP)
			snprintf(r->kmsg_first[r->kmsg_matches], sizeof(r->kmsg_first[0]), "%.199s", text);
		r->kmsg_matches++;
	}
	close(fd);
}

/* ---- what the receiver counted ---- */

struct snapshot {
	double t;
	__u64 dev_rx, dev_drop;
	__u64 ipi_call, ipi_resched;
	__u64 run_ns, run_cnt;
	struct softnet sn;
	struct stats_sample s;		/* steering counters and tracepoints */
};

struct observer {
	int ncpus;
	int netdev_fd;
	char ifname[IF_NAMESIZE];
	bool steering;			/* cpusteer is loaded on ifname */
	struct steer_instance in;
	struct tracer tracer;
	int prog_fd;			/* the attached program, for run time */
	struct snapshot first, prev, cur;
	struct stats_sample delta;
};

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
	if (ob->in.skel)
		instance_close(&ob->in);
	if (ob->prog_fd >= 0)
		close(ob->prog_fd);
	free(ob);
}

/* The instance's pins are the host's (cpusteer runs in the namespace with
 * only the network namespace changed), so they open from here; the
 * cpumap tracepoints filter on the map id, not on a device.
 */
static int observer_attach_steering(struct observer *ob)
{
	struct cpusteer_instance_state st;
	int err, n;

	err = instance_open_pinned(&ob->in, ob->ifname);
	if (err)
		return err;
	err = tracer_open(&ob->tracer, instance_cpumap_id(&ob->in), 0);
	if (err)
		return err;
	n = ob->tracer.ncpus;
	if (!instance_read_state(&ob->in, &st))
		ob->prog_fd = bpf_prog_get_fd_by_id(st.prog_id);
	if (sample_alloc(&ob->first.s, n) || sample_alloc(&ob->prev.s, n) ||
	    sample_alloc(&ob->cur.s, n) || sample_alloc(&ob->delta, n))
		return -ENOMEM;
	return 0;
}

struct observer *observer_new(int ncpus, const char *ifname, int netdev_fd, bool steering)
{
	struct observer *ob = calloc(1, sizeof(*ob));

	if (!ob)
		return NULL;
	ob->ncpus = ncpus;
	ob->netdev_fd = netdev_fd;
	ob->prog_fd = -1;
	ob->steering = steering;
	snprintf(ob->ifname, sizeof(ob->ifname), "%s", ifname);
	if (steering && observer_attach_steering(ob)) {
		observer_free(ob);
		return NULL;
	}
	return ob;
}

static int observer_read(struct observer *ob, struct snapshot *s)
{
	int err = 0;

	s->t = bench_now();
	if (ob->netdev_fd >= 0 && read_netdev(ob->netdev_fd, ob->ifname, &s->dev_rx, &s->dev_drop))
		s->dev_rx = s->dev_drop = 0;
	read_ipis(&s->ipi_call, &s->ipi_resched);
	read_softnet(&s->sn);
	read_prog_stats(ob->prog_fd, &s->run_ns, &s->run_cnt);
	if (ob->steering)
		err = sample_read(&ob->tracer, &ob->in, &s->s);
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

static void steering_figures(struct observer *ob, const struct snapshot *a,
			     const struct snapshot *b, struct bench_figures *f)
{
	int n = ob->tracer.ncpus, cpu, to;

	sample_diff(&ob->delta, &b->s, &a->s, n);
	f->received = f->queue_drops = 0;
	for (cpu = 0; cpu < n; cpu++) {
		f->received += ob->delta.rx[cpu].rx_packets;
		for (to = 0; to < n && to < BENCH_MAX_CPUS; to++) {
			f->redirected[to] += ob->delta.rx[cpu].redirected[to];
			f->queue_drops += ob->delta.enqueue[cpu * n + to].drops;
		}
		if (cpu < BENCH_MAX_CPUS)
			f->kthread[cpu] = ob->delta.kthread[cpu].processed;
	}
	if (!ob->tracer.attached[TP_CPUMAP_ENQUEUE])
		f->queue_drops = NAN;
}

/* The figures between two snapshots; the caller adds what the traffic
 * source knows (sent, seconds, Gbit/s).
 */
static void figures_between(struct observer *ob, const struct snapshot *a,
			    const struct snapshot *b, struct bench_figures *f)
{
	double load[BENCH_MAX_CPUS];
	int cpu, n = ob->ncpus;

	memset(f, 0, sizeof(*f));
	f->seconds = b->t - a->t;
	f->sent = f->gbps = f->bpf_ns = f->queue_drops = NAN;
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
	if (ob->steering)
		steering_figures(ob, a, b, f);
	else
		/* Without XDP the device counts a frame received before the
		 * stack's backlog can drop it (the RPS case), so its drops
		 * are part of its received count; take them out, so that
		 * sent = received + dropped holds for both paths.
		 */
		f->received -= f->dropped;
	/* Steering: the split the program chose. Otherwise the CPUs whose
	 * stack took the packets (RPS targets included).
	 */
	for (cpu = 0; cpu < n; cpu++)
		load[cpu] = ob->steering ? f->redirected[cpu] : f->softnet_processed[cpu];
	f->jain = jain_index(load, n);
	f->mpps = f->seconds > 0 ? f->received / f->seconds / 1e6 : NAN;
}

int observer_figures(struct observer *ob, struct bench_figures *f)
{
	int err = observer_read(ob, &ob->cur);

	if (!err)
		figures_between(ob, &ob->first, &ob->cur, f);
	return err;
}

static void swap_snapshots(struct snapshot *a, struct snapshot *b)
{
	struct snapshot t = *a;

	*a = *b;
	*b = t;
}

/* One line per second: received Mpps and the per-CPU split. */
static void print_live(struct observer *ob, const char *label, int sec)
{
	struct bench_figures f;
	int cpu, shown = 0;

	if (observer_read(ob, &ob->cur))
		return;
	figures_between(ob, &ob->prev, &ob->cur, &f);
	printf("  %-40s %3ds %8.3f Mpps  %s", label, sec, f.mpps,
	       ob->steering ? "redirected" : "stack");
	for (cpu = 0; cpu < ob->ncpus && shown < 16; cpu++, shown++)
		printf(" cpu%d %.3f", cpu,
		       (ob->steering ? f.redirected[cpu] : f.softnet_processed[cpu]) /
			       f.seconds / 1e6);
	if (ob->steering && isfinite(f.queue_drops) && f.queue_drops)
		printf("  qdrop %.0f/s", f.queue_drops / f.seconds);
	if (f.dropped)
		printf("  ring-drop %.0f/s", f.dropped / f.seconds);
	putchar('\n');
	fflush(stdout);
	swap_snapshots(&ob->prev, &ob->cur);
}

/* What ends a watch: the generator finishing, a child exiting, or a
 * deadline.
 */
struct watch_until {
	struct generator *g;
	pid_t pid;
	int status;
	double end;
};

static bool watch_done(struct watch_until *u)
{
	if (u->g)
		return generator_done(u->g);
	if (u->pid > 0)
		return waitpid(u->pid, &u->status, WNOHANG) == u->pid;
	return bench_now() >= u->end;
}

static int watch(struct observer *ob, const char *label, struct watch_until *u)
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
		for (cpu = 0; ob->steering && cpu < ob->tracer.ncpus; cpu++)
			now += ob->cur.s.rx[cpu].rx_packets;
		if (now == last)
			return;
		last = now;
		bench_sleep(0.03);
	}
}

/* ---- receivers ---- */

/* GRO through ethtool in the namespace: a veth without XDP has NAPI (and
 * so receives the generator's XDP frames at all) only with GRO on.
 */
static int ns_gro(struct testbed *b, bool on)
{
	char *argv[] = { "ip", "netns", "exec", b->topo.netns, "ethtool", "-K", b->topo.rx_if,
			 "gro", on ? "on" : "off", NULL };

	return run_host(argv);
}

/* `ip netns exec` mounts a sysfs of the namespace for the command: our
 * own /sys shows the host's devices only.
 */
static int ns_rps(struct testbed *b, const char *mask)
{
	char cmd[160];
	char *argv[] = { "ip", "netns", "exec", b->topo.netns, "sh", "-c", cmd, NULL };

	snprintf(cmd, sizeof(cmd), "echo %s > /sys/class/net/%s/queues/rx-0/rps_cpus", mask,
		 b->topo.rx_if);
	return run_host(argv);
}

/* The online CPUs as an rps_cpus mask: 32-bit hex groups, comma-separated,
 * most significant first.
 */
static void rps_mask(const char *cpus, char *buf, size_t len)
{
	__u32 words[BENCH_MAX_CPUS / 32] = {};
	struct cpuset set;
	int i, top = 0, o = 0;

	if (cpuset_parse(&set, cpus)) {
		snprintf(buf, len, "1");
		return;
	}
	for (i = 0; i < (int)set.n; i++) {
		words[set.cpu[i] / 32] |= 1u << (set.cpu[i] % 32);
		if ((int)set.cpu[i] / 32 > top)
			top = set.cpu[i] / 32;
	}
	for (i = top; i >= 0 && o < (int)len; i--)
		o += snprintf(buf + o, len - o, i == top ? "%x" : ",%08x", words[i]);
}

static int load_cpusteer(struct testbed *b, const struct bench_case *c)
{
	char *args[16];
	int n = 0;

	args[n++] = "load";
	args[n++] = b->topo.rx_if;
	args[n++] = "--cpus";
	args[n++] = b->cpus;
	args[n++] = "--remote";
	args[n++] = (char *)c->remote;
	if (c->receiver == RX_NOTOUCH)
		args[n++] = "--no-touch";
	if (c->gro >= 0) {
		args[n++] = "--gro";
		args[n++] = c->gro ? "on" : "off";
	}
	args[n] = NULL;
	return testbed_cli(b, args, NULL) ? -EIO : 0;
}

static int receiver_setup(struct testbed *b, const struct bench_case *c)
{
	char mask[96];
	int err;

	switch (c->receiver) {
	case RX_STEER:
	case RX_NOTOUCH:
		return load_cpusteer(b, c);
	case RX_RPS:
		rps_mask(b->cpus, mask, sizeof(mask));
		err = ns_gro(b, true);
		return err ?: ns_rps(b, mask);
	case RX_PLAIN:
		return c->gro >= 0 ? ns_gro(b, c->gro) : 0;
	default:
		return 0;
	}
}

/* Puts the receiver back as topology_create left it: no XDP, GRO off
 * (the veth default), rps_cpus 0.
 */
static int receiver_teardown(struct testbed *b, const struct bench_case *c)
{
	char *unload[] = { "unload", b->topo.rx_if, NULL };
	int err;

	switch (c->receiver) {
	case RX_STEER:
	case RX_NOTOUCH:
		return testbed_cli(b, unload, NULL) ? -EIO : 0;
	case RX_RPS:
		err = ns_rps(b, "0");
		return ns_gro(b, false) ?: err;
	case RX_PLAIN:
		return c->gro > 0 ? ns_gro(b, false) : 0;
	default:
		return 0;
	}
}

/* ---- one measured run ---- */

struct bench_ctx {
	struct testbed bed;
	struct bench_result *r;
	int gen_cpu;
	const char *iperf3;	/* path, or NULL when not installed */
	unsigned int run;
};

static void case_label(const struct bench_ctx *x, const struct bench_case *c, char *buf,
		       size_t len)
{
	snprintf(buf, len, "%s/%s run %u/%u", bench_scenario_name(c->scenario), c->name,
		 x->run + 1, x->r->runs);
}

static int run_generated(struct bench_ctx *x, struct bench_case *c, struct observer *ob,
			 struct bench_figures *f)
{
	struct watch_until u = {};
	struct generator g;
	char label[96];
	int err, gerr;

	case_label(x, c, label, sizeof(label));
	err = generator_start(&g, &x->bed, c->flows, x->gen_cpu, x->r->duration);
	if (err)
		return err;
	u.g = &g;
	err = watch(ob, label, &u);
	gerr = generator_stop(&g);
	if (err || gerr)
		return err ?: gerr;
	settle(ob);
	figures_between(ob, &ob->first, &ob->cur, f);
	f->sent = g.res.sent;
	f->seconds = g.res.seconds;
	f->mpps = f->seconds > 0 ? f->received / f->seconds / 1e6 : NAN;
	return 0;
}

/* ---- TCP with iperf3 ---- */

static const char *find_in_path(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[1024], *dir, *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", dir, name);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/* The server prints a banner, and complaints when a run is cut short,
 * that do not belong among the live lines; the spawn helper gives the
 * child our stdout and stderr, so point them at /dev/null for the moment
 * of the fork. A server that fails shows up as the client's failure.
 */
static pid_t spawn_iperf3_server(struct bench_ctx *x)
{
	char *argv[] = { (char *)x->iperf3, "-s", "-1", "-B", "10.201.0.2", NULL };
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (out >= 0 && err >= 0 && null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	pid = topology_spawn_in_ns(&x->bed.topo, argv);
	if (out >= 0 && err >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
	}
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	if (null >= 0)
		close(null);
	return pid;
}

/* The client's JSON goes to a memfd: nothing on disk, and no pipe that
 * fills up while we are busy sampling.
 */
static pid_t spawn_iperf3_client(struct bench_ctx *x, int out_fd)
{
	char secs[16];
	char *argv[] = { (char *)x->iperf3, "-c", "10.201.0.2", "-t", secs, "-J", NULL };
	int null;
	pid_t pid;

	snprintf(secs, sizeof(secs), "%d", (int)ceil(x->r->duration));
	pid = fork();
	if (pid)
		return pid;
	null = open("/dev/null", O_WRONLY);
	dup2(out_fd, STDOUT_FILENO);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	execv(argv[0], argv);
	_exit(127);
}

/* end.sum_received.bits_per_second of iperf3 -J, without a JSON parser:
 * "end" closes the document and the key is unique after "sum_received",
 * so the tail is enough however many intervals came before.
 */
static double iperf3_gbps(int fd)
{
	static char buf[65536];
	off_t size = lseek(fd, 0, SEEK_END), from;
	const char *p;
	ssize_t n;

	from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	n = pread(fd, buf, sizeof(buf) - 1, from);
	if (n <= 0)
		return NAN;
	buf[n] = '\0';
	p = strstr(buf, "\"sum_received\"");
	p = p ? strstr(p, "\"bits_per_second\"") : NULL;
	p = p ? strchr(p, ':') : NULL;
	return p ? strtod(p + 1, NULL) / 1e9 : NAN;
}

static void reap(pid_t pid, double timeout)
{
	double end = bench_now() + timeout;

	if (pid <= 0)
		return;
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (bench_now() >= end || bench_stop) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		usleep(20000);
	}
}

/* The server may not listen yet when the client starts: a client that
 * fails within half a second is started again, a few times.
 */
static int run_tcp_client(struct bench_ctx *x, struct observer *ob, const char *label,
			  int out_fd, struct watch_until *u)
{
	double t0;
	int tries, err;

	for (tries = 0; tries < 20; tries++) {
		if (ftruncate(out_fd, 0))
			return -errno;
		t0 = bench_now();
		u->pid = spawn_iperf3_client(x, out_fd);
		if (u->pid < 0)
			return -errno;
		err = watch(ob, label, u);
		if (err) {
			kill(u->pid, SIGKILL);
			waitpid(u->pid, NULL, 0);
			return err;
		}
		if (WIFEXITED(u->status) && !WEXITSTATUS(u->status))
			return 0;
		if (bench_now() - t0 > 0.5)
			break;
		bench_sleep(0.1);
		observer_mark(ob);
	}
	log_err("iperf3 client to 10.201.0.2 failed (status %d)", u->status);
	return -EIO;
}

static int run_tcp(struct bench_ctx *x, struct bench_case *c, struct observer *ob,
		   struct bench_figures *f)
{
	struct watch_until u = {};
	char label[96];
	pid_t server;
	int fd, err;

	case_label(x, c, label, sizeof(label));
	fd = memfd_create("iperf3", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	server = spawn_iperf3_server(x);
	err = server < 0 ? server : bench_sleep(0.2);
	if (!err)
		err = observer_mark(ob);
	if (!err)
		err = run_tcp_client(x, ob, label, fd, &u);
	reap(server, 3);
	if (!err) {
		settle(ob);
		figures_between(ob, &ob->first, &ob->cur, f);
		f->gbps = iperf3_gbps(fd);
	}
	close(fd);
	return err;
}

/* ---- cases ---- */

static int run_case(struct bench_ctx *x, struct bench_case *c, struct bench_figures *f)
{
	bool steering = c->receiver == RX_STEER || c->receiver == RX_NOTOUCH;
	struct observer *ob = NULL;
	int netdev, err, terr;

	err = receiver_setup(&x->bed, c);
	if (err)
		return err;
	netdev = testbed_netdev_fd(&x->bed);
	if (netdev < 0)
		err = netdev;
	if (!err) {
		ob = observer_new(x->bed.ncpus, x->bed.topo.rx_if, netdev, steering);
		err = ob ? 0 : -EIO;
	}
	if (!err && !c->tcp)
		err = observer_mark(ob);
	if (!err)
		err = c->tcp ? run_tcp(x, c, ob, f) : run_generated(x, c, ob, f);
	observer_free(ob);
	if (netdev >= 0)
		close(netdev);
	terr = receiver_teardown(&x->bed, c);
	return err ?: terr;
}

/* ---- control plane under load ---- */

/* Waits a moment into the flood, then runs and times one command. */
static int timed_cli(struct bench_ctx *x, char *const args[], double *slots, unsigned int *n)
{
	double ms;
	int err = bench_sleep(0.3);

	if (err)
		return err;
	if (testbed_cli(&x->bed, args, &ms))
		return -EIO;
	slots[(*n)++] = ms;
	return 0;
}

/* `set` and `unload` timed while the generator floods the steered
 * receiver: what an operator waits for on a busy machine.
 */
static int control_plane(struct bench_ctx *x)
{
	struct bench_result *r = x->r;
	struct bench_case c = { .receiver = RX_STEER, .remote = "drop", .gro = -1 };
	char first[16], *set_one[] = { "set", x->bed.topo.rx_if, "--cpus", first, NULL };
	char *set_all[] = { "set", x->bed.topo.rx_if, "--cpus", x->bed.cpus, NULL };
	char *unload[] = { "unload", x->bed.topo.rx_if, NULL };
	struct generator g;
	int err;

	snprintf(first, sizeof(first), "%ld", strtol(x->bed.cpus, NULL, 10));
	err = load_cpusteer(&x->bed, &c);
	if (!err)
		err = generator_start(&g, &x->bed, r->flows, x->gen_cpu, 3600);
	if (err)
		return err;
	err = timed_cli(x, set_one, r->set_ms, &r->nset);
	err = err ?: timed_cli(x, set_all, r->set_ms, &r->nset);
	err = err ?: timed_cli(x, unload, r->unload_ms, &r->nunload);
	generator_stop(&g);
	if (!err)
		printf("  %-40s set --cpus %s %.1f ms, set --cpus %s %.1f ms, unload %.1f ms\n",
		       "control plane under load", first, r->set_ms[r->nset - 2], x->bed.cpus,
		       r->set_ms[r->nset - 1], r->unload_ms[r->nunload - 1]);
	return err;
}

/* ---- medians and ratios ---- */

static double field(const struct bench_figures *f, size_t i)
{
	return ((const double *)f)[i];
}

static void set_field(struct bench_figures *f, size_t i, double v)
{
	((double *)f)[i] = v;
}

/* Median of the finite values; NAN when there are none. */
static double finite_median(const double *v, size_t n)
{
	double ok[BENCH_MAX_RUNS];
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			ok[k++] = v[i];
	return k ? median(ok, k) : NAN;
}

/* Ratios are taken run by run (a case against its baseline measured in
 * the same run, minutes apart at most) and then their median: drift of a
 * shared machine between runs cancels out.
 */
static void summarize_case(const struct bench_result *r, struct bench_case *c)
{
	const struct bench_case *base = &r->cases[c->baseline];
	unsigned int k, n = c->nruns < base->nruns ? c->nruns : base->nruns;
	double v[BENCH_MAX_RUNS];
	size_t i;

	_Static_assert(sizeof(struct bench_figures) % sizeof(double) == 0, "doubles only");
	for (i = 0; i < BENCH_NFIELDS; i++) {
		for (k = 0; k < c->nruns; k++)
			v[k] = field(&c->runs[k], i);
		set_field(&c->med, i, finite_median(v, c->nruns));
		for (k = 0; k < n; k++)
			v[k] = field(&c->runs[k], i) / field(&base->runs[k], i);
		set_field(&c->ratio, i, finite_median(v, n));
	}
}

/* ---- the case table ---- */

static int add_case(struct bench_result *r, enum bench_scenario sc, const char *name,
		    const char *what, int baseline, enum bench_receiver rx, const char *remote,
		    __u32 flows, int gro, bool tcp)
{
	struct bench_case *c = &r->cases[r->ncases];

	memset(c, 0, sizeof(*c));
	c->scenario = sc;
	snprintf(c->name, sizeof(c->name), name, flows);
	c->what = what;
	c->baseline = baseline < 0 ? r->ncases : baseline;
	c->receiver = rx;
	c->remote = remote;
	c->flows = flows;
	c->gro = gro;
	c->tcp = tcp;
	return r->ncases++;
}

static void add_steering_cost(struct bench_result *r, __u32 flows)
{
	int b;

	b = add_case(r, SC_STEERING_COST, "notouch-1flow", "no-touch floor, 1 flow", -1,
		     RX_NOTOUCH, "drop", 1, -1, false);
	add_case(r, SC_STEERING_COST, "steer-1flow", "5-tuple steering, 1 flow", b, RX_STEER,
		 "drop", 1, -1, false);
	if (flows == 1)
		return;
	b = add_case(r, SC_STEERING_COST, "notouch-%uflows", "no-touch floor, N flows", -1,
		     RX_NOTOUCH, "drop", flows, -1, false);
	add_case(r, SC_STEERING_COST, "steer-%uflows", "5-tuple steering, N flows", b, RX_STEER,
		 "drop", flows, -1, false);
}

static void add_others(struct bench_result *r, unsigned int scenarios, __u32 flows)
{
	int b;

	if (scenarios & (1u << SC_REMOTE_ACTIONS)) {
		b = add_case(r, SC_REMOTE_ACTIONS, "remote-drop",
			     "steering, second stage drops on the target CPU", -1, RX_STEER,
			     "drop", flows, -1, false);
		add_case(r, SC_REMOTE_ACTIONS, "remote-pass",
			 "steering, second stage passes to the target CPU's stack", b, RX_STEER,
			 "pass", flows, -1, false);
	}
	if (scenarios & (1u << SC_CPUMAP_VS_RPS)) {
		b = add_case(r, SC_CPUMAP_VS_RPS, "rps", "no XDP, GRO on, RPS over every CPU", -1,
			     RX_RPS, NULL, flows, 1, false);
		add_case(r, SC_CPUMAP_VS_RPS, "cpumap",
			 "steering through the cpumap into the stack (--remote none)", b,
			 RX_STEER, "none", flows, -1, false);
	}
	if (scenarios & (1u << SC_TCP)) {
		b = add_case(r, SC_TCP, "noxdp-gro-on", "iperf3, no XDP, GRO on", -1, RX_PLAIN,
			     NULL, 1, 1, true);
		add_case(r, SC_TCP, "steer-gro-on", "iperf3, steered (--remote pass), GRO on", b,
			 RX_STEER, "pass", 1, 1, true);
		b = add_case(r, SC_TCP, "noxdp-gro-off", "iperf3, no XDP, GRO off", -1, RX_PLAIN,
			     NULL, 1, 0, true);
		add_case(r, SC_TCP, "steer-gro-off", "iperf3, steered (--remote pass), GRO off",
			 b, RX_STEER, "pass", 1, 0, true);
	}
}

static int build_cases(struct bench_result *r, unsigned int scenarios)
{
	int i;

	r->cases = calloc(16, sizeof(*r->cases));
	if (!r->cases)
		return -ENOMEM;
	if (scenarios & (1u << SC_STEERING_COST))
		add_steering_cost(r, r->flows);
	add_others(r, scenarios, r->flows);
	for (i = 0; i < r->ncases; i++) {
		r->cases[i].runs = calloc(r->runs, sizeof(struct bench_figures));
		if (!r->cases[i].runs)
			return -ENOMEM;
	}
	return 0;
}

static void free_cases(struct bench_result *r)
{
	int i;

	for (i = 0; i < r->ncases; i++)
		free(r->cases[i].runs);
	free(r->cases);
}

/* ---- the benchmark ---- */

/* Cases take turns run by run, so a slow stretch of a shared machine
 * lands on all of them alike rather than on one.
 */
static int run_all(struct bench_ctx *x, bool control)
{
	struct bench_result *r = x->r;
	struct bench_case *c;
	int i, err;

	for (x->run = 0; x->run < r->runs; x->run++) {
		for (i = 0; i < r->ncases; i++) {
			c = &r->cases[i];
			if (c->tcp && !x->iperf3)
				continue;
			err = run_case(x, c, &c->runs[c->nruns]);
			if (err)
				return err;
			c->nruns++;
		}
		if (control) {
			err = control_plane(x);
			if (err)
				return err;
		}
	}
	return 0;
}

static void print_intro(const struct bench_ctx *x)
{
	const struct bench_result *r = x->r;

	printf("cpusteer bench: %d CPUs (%s online), %u run%s of %.3g s per case, %u flows, %u-byte UDP frames\n",
	       r->ncpus, x->bed.cpus, r->runs, r->runs == 1 ? "" : "s", r->duration, r->flows,
	       r->frame_size);
	printf("test bed: %s (host) -> %s in namespace %s; generator pinned to CPU %d\n",
	       x->bed.topo.tx_if, x->bed.topo.rx_if, x->bed.topo.netns, x->gen_cpu);
	printf("note: the generator, the receiver's NAPI and the cpumap kthreads share these %d CPUs;\n"
	       "      compare figures side by side within a run, not across machines\n",
	       r->ncpus);
	if (!x->iperf3 && r->ncases && r->cases[r->ncases - 1].tcp)
		printf("note: iperf3 is not installed: the tcp scenario is skipped\n");
	fflush(stdout);
}

static int finish(struct bench_result *r, const char *json)
{
	int i, err = 0;

	for (i = 0; i < r->ncases; i++)
		summarize_case(r, &r->cases[i]);
	bench_print_summary(r, stdout);
	if (json)
		err = bench_write_files(r, json);
	return err;
}

/* --dev: a real interface under traffic from elsewhere; stats only. */
static int bench_external(struct bench_result *r, const struct bench_live_opts *o)
{
	bool steering = instance_is_pinned(o->dev);
	struct watch_until u = {};
	struct observer *ob;
	struct bench_case *c;
	int fd, err;

	if (!if_nametoindex(o->dev)) {
		log_err("bench: cannot measure %s: no such interface", o->dev);
		return -ENODEV;
	}
	r->cases = calloc(1, sizeof(*r->cases));
	if (!r->cases)
		return -ENOMEM;
	r->runs = 1;
	add_case(r, SC_EXTERNAL, o->dev, steering ? "cpusteer loaded" : "no cpusteer instance",
		 -1, RX_EXTERNAL, NULL, 0, -1, false);
	c = &r->cases[0];
	c->runs = calloc(1, sizeof(*c->runs));
	fd = open("/proc/net/dev", O_RDONLY | O_CLOEXEC);
	ob = c->runs ? observer_new(r->ncpus, o->dev, fd, steering) : NULL;
	if (!ob) {
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	take_signals();
	printf("cpusteer bench: measuring %s for %.3g s (%s)\n", o->dev, o->duration, c->what);
	err = observer_mark(ob);
	u.end = bench_now() + o->duration;
	if (!err)
		err = watch(ob, o->dev, &u);
	if (!err)
		err = observer_figures(ob, &c->runs[0]);
	if (!err)
		c->nruns = 1;
	observer_free(ob);
	close(fd);
	return err;
}

static int bench_topology(struct bench_ctx *x, const struct bench_live_opts *o)
{
	struct bench_result *r = x->r;
	char path[256];
	int err, stats_fd, kmsg;

	err = build_cases(r, o->scenarios);
	if (err)
		return err;
	x->iperf3 = find_in_path("iperf3", path, sizeof(path));
	kmsg = kmsg_open();
	/* Run-time statistics stay on while this fd is open, and go off
	 * with it, also when the run dies.
	 */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		log_err("note: cannot enable BPF run-time statistics (%s): no ns/packet figures",
			strerror(errno));
	err = testbed_open(&x->bed);
	if (!err) {
		print_intro(x);
		err = run_all(x, o->scenarios & (1u << SC_STEERING_COST));
	}
	testbed_close(&x->bed);
	if (stats_fd >= 0)
		close(stats_fd);
	kmsg_scan(kmsg, r);
	return err;
}

int bench_live(const struct bench_live_opts *o)
{
	struct bench_result r = {
		.duration = o->duration, .runs = o->runs, .flows = o->flows, .dev = o->dev,
		.frame_size = trafficgen_min_frame_size(4, IPPROTO_UDP),
	};
	struct bench_ctx x = { .r = &r, .gen_cpu = 0 };
	int err;

	if (require_root("bench"))
		return 1;
	r.ncpus = libbpf_num_possible_cpus();
	if (r.ncpus > BENCH_MAX_CPUS)
		r.ncpus = BENCH_MAX_CPUS;
	r.gen_cpu = x.gen_cpu;
	err = o->dev ? bench_external(&r, o) : bench_topology(&x, o);
	if (bench_stop || err == -EINTR) {
		free_cases(&r);
		log_err("bench: interrupted; cpusteer unloaded and the test bed removed");
		return 130;
	}
	if (!err)
		err = finish(&r, o->json);
	free_cases(&r);
	return err ? 1 : 0;
}
