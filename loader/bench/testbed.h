/* SPDX-License-Identifier: GPL-2.0 */
/* The test bed that `cpusteer-bench bench` and `cpusteer-bench demo`
 * build for themselves: the namespaced veth pair of topology.h, the
 * cpusteer beside them driven through its CLI inside the namespace, the
 * live-frames generator on a thread of its own, and the Ctrl-C handling
 * that lets a run unload cpusteer and remove everything before it exits.
 */
#ifndef CPUSTEER_TESTBED_H
#define CPUSTEER_TESTBED_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "topology.h"
#include "trafficgen.h"

/* Per-CPU figures of bench and demo have room for this many CPUs. */
#define BENCH_MAX_CPUS CPUSTEER_MAX_CPUS

/* ---- stopping on Ctrl-C ---- */

/* Set by SIGINT/SIGTERM once testbed_open or bench_take_stop_signals has
 * run; whoever waits checks it and unwinds.
 */
extern volatile int bench_stop;

/* Replaces topology's own hooks (which remove the namespace at once): a
 * signal only sets bench_stop, so the run can unload cpusteer first.
 */
void bench_take_stop_signals(void);

/* A thread with SIGINT and SIGTERM blocked, so that they reach only the
 * main thread, which owns the cleanup. WHAT names it in the error line.
 */
int bench_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const char *what);

double bench_now(void);
/* Sleeps up to `seconds`, in slices, returning early with -EINTR once
 * bench_stop is set.
 */
int bench_sleep(double seconds);
/* Gives child PID up to `grace` seconds to exit by itself (less once
 * bench_stop is set), then sends it `sig`; in every case waits for it.
 */
void bench_reap_child(pid_t pid, double grace, int sig);
/* Sends child PID `sig` and gives it `grace` seconds to exit, also after
 * Ctrl-C (a child that cleans up on `sig`), then SIGKILL. Returns its
 * wait status.
 */
int bench_stop_child(pid_t pid, int sig, double grace);

/* ---- the namespaced veth pair ---- */

struct testbed {
	struct topology topo;
	bool have_topo;
	bool device;		/* a real interface of this namespace (--dev), not ours */
	int ncpus;		/* possible CPUs, for per-CPU counters */
	char cpus[64];		/* the online CPUs as a --cpus list */
	/* How the generator's frames leave (gen --transmit): AUTO unless
	 * the caller chose before its first flood.
	 */
	enum trafficgen_transmit transmit;
};

/* The online CPUs but `cpu`, as a --cpus list into buf: empty when `cpu`
 * is the only one.
 */
void testbed_cpus_but(const struct testbed *b, int cpu, char *buf, size_t len);

/* Builds the topology and takes over SIGINT/SIGTERM (they set
 * bench_stop); the caller checks bench_stop and calls testbed_close.
 */
int testbed_open(struct testbed *b);
/* A real interface of this namespace as the receiver, with no sender of
 * ours: outside traffic. Takes over SIGINT/SIGTERM as testbed_open does.
 */
int testbed_of_device(struct testbed *b, const char *ifname);
/* Unloads cpusteer from the receiver if it is loaded, removes the
 * topology.
 */
void testbed_close(struct testbed *b);
/* Runs `cpusteer ARGS...` inside the namespace; its stdout is kept back
 * and shown only when it fails. *ms (optional) gets the wall time.
 * Returns the exit status or a negative errno.
 */
int testbed_cli(struct testbed *b, char *const args[], double *ms);

/* Runs `ip -n NAMESPACE ARGS...` (at most 12 ARGS), output shown only
 * when it fails; *ms (optional) gets the wall time. 0 or -EIO.
 */
int testbed_ip(struct testbed *b, char *const args[], double *ms);

/* Starts `cpusteer ARGS...` inside the namespace in the background, its
 * stdout into `out_fd`; returns its pid or a negative errno. The caller
 * ends and reaps it.
 */
pid_t testbed_cli_spawn(struct testbed *b, char *const args[], int out_fd);

/* `cpusteer load` on the receiver over every online CPU, with --remote
 * REMOTE, --no-touch if asked, and --gro and --threaded-napi on/off
 * unless `gro` or `threaded` is -1.
 */
int testbed_load(struct testbed *b, const char *remote, bool no_touch, int gro, int threaded);
/* The same over `cpus` (a --cpus list; NULL: every online CPU), with the
 * options of `extra` (NULL-terminated; at most TESTBED_LOAD_EXTRA) at the
 * end: --bucket-stats, --key HEX.
 */
#define TESTBED_LOAD_EXTRA 6
int testbed_load_extra(struct testbed *b, const char *cpus, const char *remote, bool no_touch,
		       int gro, int threaded, char *const extra[]);
int testbed_unload(struct testbed *b);
struct instance_dir;
/* Names the receiver's cpusteer instance (in the test bed's namespace). */
int testbed_instance_dir(const struct testbed *b, struct instance_dir *d);

/* The receiver without cpusteer. GRO on gives a veth without XDP the
 * NAPI it needs to receive the generator's frames at all; RPS spreads
 * them over every online CPU, or (off) over none.
 */
int testbed_set_gro(struct testbed *b, bool on);
int testbed_set_rps(struct testbed *b, bool every_cpu);

/* Whether the receiver's NAPI is threaded now. */
int testbed_threaded_napi(const struct testbed *b, bool *on);

/* /proc/net/dev of the receiving namespace, as an fd for observer_new. */
int testbed_netdev_fd(const struct testbed *b);

/* ---- the generator thread ---- */

/* The generator on a thread of its own, so the caller can sample and
 * drive the control plane while it runs.
 */
struct generator {
	pthread_t thread;
	struct trafficgen_opts opts;
	struct trafficgen_result res;
	volatile int stop;
	int done;		/* set by the thread when trafficgen_run returns */
	int err;
	bool running;
};

/* What the generator sends on the test bed: smallest UDP frames of
 * `flows` flows from the host side to the receiver, from CPU `cpu`, for
 * `seconds`. A caller may change the flow mix (elephants) before it
 * starts the generator with generator_start_with.
 */
void testbed_traffic(const struct testbed *b, __u32 flows, int cpu, double seconds,
		     struct trafficgen_opts *o);
int generator_start_with(struct generator *g, const struct trafficgen_opts *o);
/* testbed_traffic, started. */
int generator_start(struct generator *g, const struct testbed *b, __u32 flows, int cpu,
		    double seconds);
/* Whether trafficgen_run has returned (duration over, or an error). */
bool generator_done(struct generator *g);
/* Stops it (if still running) and waits; returns its error. */
int generator_stop(struct generator *g);

#endif
