/* SPDX-License-Identifier: GPL-2.0 */
/* The throughput benchmark's cases: what each scenario compares, the
 * figures every run of a case produced, and their medians and ratios to
 * the case's baseline. The run loop (bench_live.c) fills them in, the
 * report (bench_report.c) prints them.
 */
#ifndef CPUSTEER_BENCH_CASES_H
#define CPUSTEER_BENCH_CASES_H

#include <stdbool.h>
#include <linux/types.h>
#include "bench.h"
#include "bench_skewed.h"
#include "kernel_log.h"
#include "name_table.h"
#include "observer.h"
#include "trafficgen.h"

/* Wall times of cpusteer commands, each run as an operator would (a new
 * process in the receiver's namespace). The floor is a cpusteer that only
 * starts and prints its help: what every command costs before it does
 * anything.
 */
enum control_timing {
	CT_FLOOR_IDLE,
	CT_SET_IDLE,
	CT_STATUS_IDLE,
	CT_FLOOR_FLOOD,		/* under the generator's full-rate flood */
	CT_SET_FLOOD,
	CT_STATUS_FLOOD,
	CT_UNLOAD_FLOOD,
	CONTROL_TIMINGS
};

#define CONTROL_SAMPLES_PER_RUN 4

struct control_timings {
	double ms[CONTROL_SAMPLES_PER_RUN * BENCH_MAX_RUNS];
	unsigned int n;
};

const char *control_timing_name(enum control_timing t);

/* threaded-napi: what a loop does to the receiving device again and
 * again while the flood runs, each timed as its own process.
 */
enum flood_op {
	FO_MTU_CHANGE,		/* `ip link set DEV mtu X`, X alternating */
	FO_NETLINK_NOOP,	/* the same with the current MTU: RTM_NEWLINK that changes nothing */
	FO_CPUSTEER_SET,	/* `cpusteer set DEV --cpus`, alternating lists */
	FLOOD_OPS
};

struct flood_timings {
	double *ms;		/* grows as the loop goes */
	unsigned int n, cap;
};

const char *flood_op_name(enum flood_op op);

enum bench_scenario {
	SC_STEERING_COST,
	SC_RECEIVE_BOUND,
	SC_PEER,		/* xdp-bench redirect-cpu beside cpusteer */
	SC_REMOTE_ACTIONS,
	SC_CPUMAP_VS_RPS,
	SC_TCP,
	SC_NIC_HASH,
	SC_SKEWED,		/* long: only when asked for by name */
	SC_THREADED_NAPI,	/* long: only when asked for by name */
	SC_EXTERNAL,		/* --dev: a real interface under outside traffic */
	SC_COUNT
};

/* What runs without --scenario: all but the long ones. */
#define BENCH_LONG_SCENARIOS ((1u << SC_SKEWED) | (1u << SC_THREADED_NAPI))
#define BENCH_DEFAULT_SCENARIOS (((1u << SC_EXTERNAL) - 1) & ~BENCH_LONG_SCENARIOS)

/* The scenarios --scenario takes: all but SC_EXTERNAL, which --dev gives. */
extern const struct name_value bench_scenario_names[];
const char *bench_scenario_name(enum bench_scenario sc);

/* What receives the traffic in one case. */
enum bench_receiver {
	RX_STEER,		/* cpusteer, 5-tuple steering */
	RX_NOTOUCH,		/* cpusteer's no-touch floor */
	RX_RPS,			/* no XDP, RPS over every CPU */
	RX_PLAIN,		/* no XDP, no RPS */
	RX_EXTERNAL,		/* --dev: whatever runs there */
	RX_XDP_BENCH,		/* xdp-bench redirect-cpu (bench_peer.h) */
};

struct bench_case {
	enum bench_scenario scenario;
	char name[32];
	const char *what;		/* one line for people */
	int baseline;			/* index of the case it is compared with */
	enum bench_receiver receiver;
	const char *remote;		/* --remote of load, for RX_STEER/RX_NOTOUCH */
	__u32 flows;
	int gro;			/* -1 leave alone, 0 off, 1 on */
	int threaded;			/* threaded NAPI: -1 leave alone, 0 off, 1 on */
	bool tcp;			/* iperf3 instead of the generator */
	/* iperf3 over UDP instead (a frame the peer's stack sent, which a
	 * veth gives its RX hash for), headline Mpps; with `hash`, the
	 * receiver's --hash.
	 */
	bool udp;
	const char *hash;
	/* receive-bound: cpusteer targets the online CPUs but the
	 * generator's, so that the one core that generates and runs the
	 * program is the bottleneck, not the drop on the target.
	 */
	bool spare_generator_cpu;
	/* peer: xdp-bench's --program-mode, and why it failed (empty while
	 * it has not): a mode that fails is left out from then on.
	 */
	const char *peer_mode;
	char failed[192];
	/* A second case to hold this one against (cpusteer's steering
	 * against xdp-bench's l4-hash), -1 for none, and the median of the
	 * run-by-run ratios of their headlines.
	 */
	int compare_to;
	double compare_ratio;
	struct bench_figures *runs;	/* [result.runs] */
	unsigned int nruns;
	struct bench_figures med;	/* medians of the runs */
	struct bench_figures ratio;	/* medians of run-by-run ratios to the baseline */
	/* threaded-napi only: one flood of flood_duration, the control
	 * loop's timings and what the kernel logged meanwhile.
	 */
	struct flood_timings ops[FLOOD_OPS];
	struct kernel_log_alarms kmsg;
	int threaded_seen;		/* read back after the load; -1 unknown */
	/* skewed: the first `elephants` flows carry `elephant_share`
	 * percent of the frames; the receiver is loaded with bucket
	 * counters and the key of bench_result.skew, and with `balance`
	 * runs cpusteer balance, whose steps each run tallies.
	 */
	__u32 elephants, elephant_share;
	bool balance;
	struct balance_tally *tallies;	/* [result.runs] when balance */
};

struct bench_result {
	int ncpus;
	double duration;
	unsigned int runs;
	__u32 flows;
	int gen_cpu;
	/* How the generator's frames left, set by its first run; AUTO until
	 * then (and with --dev, which has no generator).
	 */
	enum trafficgen_transmit transmit;
	__u32 frame_size;
	double flood_duration;		/* threaded-napi, seconds per side */
	const char *dev;		/* --dev IFACE, or NULL */
	const char *xdp_bench;		/* peer: its path, NULL when not installed */
	char xdp_bench_version[96];
	struct bench_case *cases;
	int ncases;
	struct control_timings control[CONTROL_TIMINGS];
	struct kernel_log_alarms kmsg;
	struct skew_key skew;		/* skewed: chosen before the first run */
	bool interrupted;
};

/* The headline of a case: Gbit/s for TCP, delivered Mpps for the peer
 * scenario (both programs counted alike, at the target CPUs), received
 * Mpps otherwise.
 */
double bench_headline(const struct bench_case *c, const struct bench_figures *f);

/* The cases of the scenarios in `scenarios` (a bit per enum
 * bench_scenario), r->flows flows where a case has many, each with room
 * for r->runs runs.
 */
int bench_cases_build(struct bench_result *r, unsigned int scenarios);
/* The one case of --dev DEV, one run. */
int bench_cases_external(struct bench_result *r, const char *dev, bool steering);
void bench_cases_free(struct bench_result *r);
/* Fills in every case's medians and ratios from its runs. */
void bench_cases_summarize(struct bench_result *r);

#endif
