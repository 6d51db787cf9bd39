/* SPDX-License-Identifier: GPL-2.0 */
/* Throughput benchmark (`cpusteer bench` without --program) and the test
 * bed it shares with `cpusteer demo`: a namespaced veth pair, cpusteer
 * driven through its own CLI inside the namespace, and the live-frames
 * generator on a thread of its own.
 */
#ifndef CPUSTEER_BENCH_LIVE_H
#define CPUSTEER_BENCH_LIVE_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "topology.h"
#include "trafficgen.h"

#define BENCH_MAX_CPUS CPUSTEER_MAX_CPUS
#define BENCH_MAX_RUNS 101

enum bench_scenario {
	SC_STEERING_COST,
	SC_REMOTE_ACTIONS,
	SC_CPUMAP_VS_RPS,
	SC_TCP,
	SC_EXTERNAL,		/* --dev: a real interface under outside traffic */
	SC_COUNT
};

const char *bench_scenario_name(enum bench_scenario sc);

/* What receives the traffic in one case. */
enum bench_receiver {
	RX_STEER,		/* cpusteer, 5-tuple steering */
	RX_NOTOUCH,		/* cpusteer's no-touch floor */
	RX_RPS,			/* no XDP, RPS over every CPU */
	RX_PLAIN,		/* no XDP, no RPS */
	RX_EXTERNAL,		/* --dev: whatever runs there */
};

/* The figures of one run (or their medians, or ratios). Every member is
 * a double so that medians and ratios are taken member by member over
 * the struct as an array; NAN marks a figure that does not apply.
 */
struct bench_figures {
	double seconds;
	double sent;			/* frames the generator transmitted */
	double received;		/* frames the receiver's counters saw */
	double dropped;			/* frames the receiving device refused */
	double mpps;			/* received per second, millions */
	double gbps;			/* tcp: iperf3 receiver goodput */
	double queue_drops;		/* cpumap enqueue drops: queue full */
	double jain;			/* fairness of the per-CPU load */
	double bpf_ns;			/* steering program run time per packet */
	double ipi_call;		/* function-call IPIs, all CPUs */
	double ipi_resched;		/* rescheduling IPIs, all CPUs */
	double redirected[BENCH_MAX_CPUS];
	double kthread[BENCH_MAX_CPUS];
	double softnet_processed[BENCH_MAX_CPUS];
	double softnet_dropped[BENCH_MAX_CPUS];
	double softnet_squeeze[BENCH_MAX_CPUS];
};

#define BENCH_NFIELDS (sizeof(struct bench_figures) / sizeof(double))

struct bench_case {
	enum bench_scenario scenario;
	char name[32];
	const char *what;		/* one line for people */
	int baseline;			/* index of the case it is compared with */
	enum bench_receiver receiver;
	const char *remote;		/* --remote of load, for RX_STEER/RX_NOTOUCH */
	__u32 flows;
	int gro;			/* -1 leave alone, 0 off, 1 on */
	bool tcp;			/* iperf3 instead of the generator */
	struct bench_figures *runs;	/* [result.runs] */
	unsigned int nruns;
	struct bench_figures med;	/* medians of the runs */
	struct bench_figures ratio;	/* medians of run-by-run ratios to the baseline */
};

#define BENCH_KMSG_KEEP 5

struct bench_result {
	int ncpus;
	double duration;
	unsigned int runs;
	__u32 flows;
	int gen_cpu;
	__u32 frame_size;
	const char *dev;		/* --dev IFACE, or NULL */
	struct bench_case *cases;
	int ncases;
	double set_ms[2 * BENCH_MAX_RUNS];
	unsigned int nset;
	double unload_ms[BENCH_MAX_RUNS];
	unsigned int nunload;
	bool kmsg_readable;
	unsigned int kmsg_matches;
	char kmsg_first[BENCH_KMSG_KEEP][200];
	bool interrupted;
};

/* The headline of a case: Gbit/s for TCP, Mpps otherwise. */
double bench_headline(const struct bench_case *c, const struct bench_figures *f);

struct bench_live_opts {
	double duration;
	unsigned int runs;
	__u32 flows;
	unsigned int scenarios;		/* bit per enum bench_scenario */
	const char *json;
	const char *dev;
};

/* Runs the throughput benchmark; returns an exit code (130 after
 * SIGINT/SIGTERM, everything removed).
 */
int bench_live(const struct bench_live_opts *o);

/* ---- the test bed, shared with demo ---- */

/* Set by SIGINT/SIGTERM once testbed_open has run. */
extern volatile int bench_stop;

struct testbed {
	struct topology topo;
	bool have_topo;
	int ncpus;		/* possible CPUs, for per-CPU counters */
	char cpus[64];		/* the online CPUs as a --cpus list */
};

/* Builds the topology and takes over SIGINT/SIGTERM (they set
 * bench_stop); the caller checks bench_stop and calls testbed_close.
 */
int testbed_open(struct testbed *b);
/* Unloads cpusteer from the receiver if it is loaded, removes the
 * topology.
 */
void testbed_close(struct testbed *b);
/* Runs `cpusteer ARGS...` inside the namespace; its stdout is kept back
 * and shown only when it fails. *ms (optional) gets the wall time.
 * Returns the exit status or a negative errno.
 */
int testbed_cli(struct testbed *b, char *const args[], double *ms);

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

int generator_start(struct generator *g, const struct testbed *b, __u32 flows, int cpu,
		    double seconds);
/* Whether trafficgen_run has returned (duration over, or an error). */
bool generator_done(struct generator *g);
/* Stops it (if still running) and waits; returns its error. */
int generator_stop(struct generator *g);

/* What the receiver counted between a mark and now: the steering
 * program's per-CPU counters and the cpumap tracepoints (when `steering`:
 * cpusteer is loaded on IFNAME), IFNAME's line of the /proc/net/dev open
 * at `netdev_fd` (-1: none), softnet and IPI counters, and the attached
 * program's run time when BPF statistics are on.
 */
struct observer;
struct observer *observer_new(int ncpus, const char *ifname, int netdev_fd, bool steering);
int observer_mark(struct observer *ob);
int observer_figures(struct observer *ob, struct bench_figures *f);
void observer_free(struct observer *ob);
/* /proc/net/dev of the receiving namespace, as an fd for observer_new. */
int testbed_netdev_fd(const struct testbed *b);

/* Sleeps up to `seconds`, in slices, returning early with -EINTR once
 * bench_stop is set.
 */
int bench_sleep(double seconds);
double bench_now(void);

#endif
