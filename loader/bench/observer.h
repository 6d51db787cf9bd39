/* SPDX-License-Identifier: GPL-2.0 */
/* What the receiver counted between a mark and now, as the figures that
 * bench reports and demo summarizes: the steering program's per-CPU
 * counters (when cpusteer is loaded on the interface), the tracepoints of
 * the cpumap its program redirects through (cpusteer's or another's), the
 * interface's line of /proc/net/dev, softnet and IPI counters, and the
 * attached program's run time when BPF statistics are on. While traffic
 * flows it prints one line a second.
 */
#ifndef CPUSTEER_OBSERVER_H
#define CPUSTEER_OBSERVER_H

#include <stdbool.h>
#include <sys/types.h>
#include "testbed.h"

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
	double delivered;		/* frames the target CPUs' cpumap kthreads took */
	double delivered_mpps;
	/* What the receiving program counted itself (xdp-bench's totals),
	 * a cross-check of `received`.
	 */
	double peer_counted;
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

struct observer;

struct instance_dir;

/* Watches IFNAME: its /proc/net/dev line through `netdev_fd` (-1: none;
 * the observer owns it from here on, also when this fails), and the
 * steering counters of the instance `steering` (NULL when cpusteer is not
 * loaded on IFNAME).
 */
struct observer *observer_new(int ncpus, const char *ifname, int netdev_fd,
			      const struct instance_dir *steering);
/* The same for the test bed's receiver. */
struct observer *observer_of_testbed(const struct testbed *b, bool steering);
/* The test bed's receiver running another program, `prog_id`, that
 * redirects through cpumap `cpumap_id`: the device's counts, that
 * cpumap's tracepoints and the program's run time.
 */
struct observer *observer_of_cpumap(const struct testbed *b, __u32 prog_id, __u32 cpumap_id);
void observer_free(struct observer *ob);

/* Where the figures start counting. */
int observer_mark(struct observer *ob);
/* The figures from the mark until now. */
int observer_figures(struct observer *ob, struct bench_figures *f);
/* The same once the traffic has stopped: first waits until the counts
 * hold still. The caller adds what the traffic source knows (sent,
 * seconds, Gbit/s).
 */
void observer_final_figures(struct observer *ob, struct bench_figures *f);

/* mpps and delivered_mpps from the counts and the seconds. */
void bench_figures_rates(struct bench_figures *f);

/* What ends a watch: the generator finishing (g set), a child exiting
 * (pid > 0; its wait status lands in `status`), or a deadline.
 */
struct watch_until {
	struct generator *g;
	pid_t pid;
	int status;
	double end;
};

/* One line a second under LABEL (received Mpps and the per-CPU split)
 * until `u` says so; -EINTR once bench_stop is set.
 */
int observer_watch(struct observer *ob, const char *label, struct watch_until *u);

#endif
