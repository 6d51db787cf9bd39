// SPDX-License-Identifier: GPL-2.0
/* The test bed of bench and demo (see testbed.h): setting up and taking
 * down the namespaced receiver, running cpusteer and iproute2/ethtool
 * against it, the generator thread, and Ctrl-C.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "cpuset.h"
#include "device.h"
#include "instance.h"
#include "pin_tree.h"
#include "log.h"
#include "clock.h"
#include "testbed.h"

volatile int bench_stop;

/* ---- stopping on Ctrl-C ---- */

static void on_stop_signal(int sig)
{
	(void)sig;
	bench_stop = 1;
}

/* No SA_RESTART: waits end early and see the flag. */
void bench_take_stop_signals(void)
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

int bench_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *what)
{
	sigset_t old;
	int err;

	block_stop_signals(&old);
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		log_err("cannot start the %s thread: %s", what, strerror(err));
	return -err;
}

double bench_now(void)
{
	return monotonic_ns() / 1e9;
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

/* Waits for child PID until `end`, or with `hurry` until bench_stop is
 * set, then sends it `sig` and waits for it. Returns its wait status.
 */
static int reap_until(pid_t pid, double end, bool hurry, int sig)
{
	int status = 0;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (bench_now() >= end || (hurry && bench_stop)) {
			kill(pid, sig);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(20000);
	}
	return status;
}

void bench_reap_child(pid_t pid, double grace, int sig)
{
	if (pid > 0)
		reap_until(pid, bench_now() + grace, true, sig);
}

int bench_stop_child(pid_t pid, int sig, double grace)
{
	kill(pid, sig);
	return reap_until(pid, bench_now() + grace, false, SIGKILL);
}

/* ---- commands against the receiver ---- */

/* Runs a command in the host namespace, output kept back and shown
 * (its first kilobyte) only when it fails. Stop signals wait until it is
 * done, as in testbed_cli. *ms (optional) gets the wall time.
 */
static int run_host(char *const argv[], double *ms)
{
	char out[1024] = "";
	int pipefd[2], status;
	size_t got = 0;
	sigset_t old;
	double t0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	block_stop_signals(&old);
	t0 = bench_now();
	pid = fork();
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid > 0)
		got = read_bounded(pipefd[0], out, sizeof(out));
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 127 << 8;
	if (ms)
		*ms = (bench_now() - t0) * 1e3;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (got && out[got - 1] == '\n')
		got--;
	out[got] = '\0';
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (status)
		log_err("%s %s failed (status %d): %s", argv[0], argv[1], status, out);
	return status ? -EIO : 0;
}

#define TESTBED_MAX_ARGS 22

/* argv for cpusteer ARGS...: the cpusteer beside us, then at most
 * TESTBED_MAX_ARGS of them.
 */
static void cli_argv(char *const args[], char *argv[TESTBED_MAX_ARGS + 2])
{
	int i;

	argv[0] = (char *)cpusteer_beside();
	for (i = 0; args[i] && i < TESTBED_MAX_ARGS; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
}

int testbed_cli(struct testbed *b, char *const args[], double *ms)
{
	char *argv[TESTBED_MAX_ARGS + 2], out[4096];
	sigset_t old;
	double t0;
	int rc;

	cli_argv(args, argv);
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

/* topology_spawn_in_ns gives the child our stdout: point ours at out_fd
 * for the moment of the fork. Nothing else prints meanwhile: the caller
 * is the main thread, between live lines. Stop signals stay unblocked in
 * the child, so that the SIGTERM that ends it is not held back.
 */
pid_t testbed_cli_spawn(struct testbed *b, char *const args[], int out_fd)
{
	char *argv[TESTBED_MAX_ARGS + 2];
	int saved;
	pid_t pid;

	cli_argv(args, argv);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved >= 0 && dup2(out_fd, STDOUT_FILENO) >= 0) {
		pid = topology_spawn_in_ns(&b->topo, argv);
		dup2(saved, STDOUT_FILENO);
	} else {
		pid = -errno;
	}
	if (saved >= 0)
		close(saved);
	if (pid < 0)
		log_err("cannot start cpusteer %s in namespace %s: %s", args[0], b->topo.netns,
			strerror(-pid));
	return pid;
}

int testbed_ip(struct testbed *b, char *const args[], double *ms)
{
	char *argv[16];
	int i;

	argv[0] = "ip";
	argv[1] = "-n";
	argv[2] = b->topo.netns;
	for (i = 0; args[i] && i < 12; i++)
		argv[i + 3] = args[i];
	argv[i + 3] = NULL;
	return run_host(argv, ms);
}

int testbed_load(struct testbed *b, const char *remote, bool no_touch, int gro, int threaded)
{
	return testbed_load_extra(b, NULL, remote, no_touch, gro, threaded, NULL);
}

int testbed_load_extra(struct testbed *b, const char *cpus, const char *remote, bool no_touch,
		       int gro, int threaded, char *const extra[])
{
	/* load IFACE --cpus L --remote R --no-touch --gro X --threaded-napi X */
	char *args[11 + TESTBED_LOAD_EXTRA + 1];
	int n = 0, i;

	args[n++] = "load";
	args[n++] = b->topo.rx_if;
	args[n++] = "--cpus";
	args[n++] = (char *)(cpus ? cpus : b->cpus);
	args[n++] = "--remote";
	args[n++] = (char *)remote;
	if (no_touch)
		args[n++] = "--no-touch";
	if (gro >= 0) {
		args[n++] = "--gro";
		args[n++] = gro ? "on" : "off";
	}
	if (threaded >= 0) {
		args[n++] = "--threaded-napi";
		args[n++] = threaded ? "on" : "off";
	}
	for (i = 0; extra && extra[i] && i < TESTBED_LOAD_EXTRA; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	return testbed_cli(b, args, NULL) ? -EIO : 0;
}

int testbed_instance_dir(const struct testbed *b, struct instance_dir *d)
{
	int err = topology_enter(&b->topo);

	if (err)
		return err;
	err = instance_dir_init(d, b->topo.rx_if);
	topology_leave();
	return err;
}

int testbed_unload(struct testbed *b)
{
	char *unload[] = { "unload", b->topo.rx_if, NULL };

	return testbed_cli(b, unload, NULL) ? -EIO : 0;
}

/* GRO through ethtool in the namespace. */
int testbed_set_gro(struct testbed *b, bool on)
{
	char *argv[] = { "ip", "netns", "exec", b->topo.netns, "ethtool", "-K", b->topo.rx_if,
			 "gro", on ? "on" : "off", NULL };

	return run_host(argv, NULL);
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

/* `ip netns exec` mounts a sysfs of the namespace for the command: our
 * own /sys shows the host's devices only.
 */
int testbed_set_rps(struct testbed *b, bool every_cpu)
{
	char mask[96], cmd[160];
	char *argv[] = { "ip", "netns", "exec", b->topo.netns, "sh", "-c", cmd, NULL };

	if (every_cpu)
		rps_mask(b->cpus, mask, sizeof(mask));
	else
		snprintf(mask, sizeof(mask), "0");
	snprintf(cmd, sizeof(cmd), "echo %s > /sys/class/net/%s/queues/rx-0/rps_cpus", mask,
		 b->topo.rx_if);
	return run_host(argv, NULL);
}

/* Read inside the namespace, where device.c finds the receiver's NAPI
 * settings whatever this process's /sys shows.
 */
int testbed_threaded_napi(const struct testbed *b, bool *on)
{
	struct device_settings cur;
	int err = topology_enter(&b->topo);

	if (err)
		return err;
	err = device_read(b->topo.rx_if, &cur);
	topology_leave();
	if (!err && !(cur.mask & DEV_THREADED_NAPI))
		err = -ENODATA;
	if (!err)
		*on = cur.threaded;
	return err;
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

void testbed_cpus_but(const struct testbed *b, int cpu, char *buf, size_t len)
{
	struct cpuset all, rest = {};
	__u32 i;

	buf[0] = '\0';
	if (cpuset_parse(&all, b->cpus))
		return;
	for (i = 0; i < all.n; i++)
		if (all.cpu[i] != (__u32)cpu)
			rest.cpu[rest.n++] = all.cpu[i];
	cpuset_format(&rest, buf, len);
}

/* ---- setting up and taking down ---- */

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
	return run_host(host, NULL) ?: run_host(ns, NULL);
}

/* A test bed with no receiver yet: the machine's CPUs. */
static int testbed_init(struct testbed *b)
{
	struct cpuset online;
	int err;

	memset(b, 0, sizeof(*b));
	if (!cpusteer_beside())
		return -ENOENT;
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0)
		return b->ncpus ? b->ncpus : -EINVAL;
	if (b->ncpus > BENCH_MAX_CPUS)
		b->ncpus = BENCH_MAX_CPUS;
	err = cpuset_online(&online);
	if (!err)
		cpuset_format(&online, b->cpus, sizeof(b->cpus));
	return err;
}

int testbed_open(struct testbed *b)
{
	char path[128];
	int err;

	err = testbed_init(b);
	if (err)
		return err;
	err = topology_create(&b->topo);
	if (err)
		return err;
	b->have_topo = true;
	bench_take_stop_signals();
	/* The sender's IPv6 autoconfiguration (router solicitations, MLD)
	 * would add frames nobody generated to the receiver's counts.
	 */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", b->topo.tx_if);
	write_text(path, "1");
	err = static_neighbours(b);
	return bench_stop ? -EINTR : err;
}

int testbed_of_device(struct testbed *b, const char *ifname)
{
	int err = testbed_init(b);

	if (err)
		return err;
	snprintf(b->topo.rx_if, sizeof(b->topo.rx_if), "%s", ifname);
	b->topo.rx_ifindex = if_nametoindex(ifname);
	if (!b->topo.rx_ifindex) {
		log_err("bench: cannot measure %s: no such interface", ifname);
		return -ENODEV;
	}
	b->device = true;
	bench_take_stop_signals();
	return 0;
}

void testbed_close(struct testbed *b)
{
	struct instance_dir d;

	if (!b->have_topo && !b->device)
		return;
	if (!testbed_instance_dir(b, &d) && !instance_dir_open(&d, 0)) {
		instance_dir_close(&d);
		testbed_unload(b);
	}
	if (b->have_topo)
		topology_destroy(&b->topo);
	b->have_topo = b->device = false;
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

void testbed_traffic(const struct testbed *b, __u32 flows, int cpu, double seconds,
		     struct trafficgen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ifindex = b->topo.tx_ifindex;
	o->src_mac = b->topo.tx_mac;
	o->dst_mac = b->topo.rx_mac;
	o->family = 4;
	o->proto = IPPROTO_UDP;
	o->flows = flows;
	o->frame_size = trafficgen_min_frame_size(4, IPPROTO_UDP);
	o->duration_s = seconds;
	o->cpu = cpu;
	o->transmit = b->transmit;
}

int generator_start(struct generator *g, const struct testbed *b, __u32 flows, int cpu,
		    double seconds)
{
	struct trafficgen_opts o;

	testbed_traffic(b, flows, cpu, seconds, &o);
	return generator_start_with(g, &o);
}

int generator_start_with(struct generator *g, const struct trafficgen_opts *o)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->opts = *o;
	err = bench_thread_start(&g->thread, generator_main, g, "traffic generator");
	if (err)
		return err;
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
