// SPDX-License-Identifier: GPL-2.0
/* The case table of the throughput benchmark and the summary of its runs
 * (see bench_cases.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_cases.h"
#include "cli.h"
#include "stats_math.h"

const struct name_value bench_scenario_names[] = {
	{ .name = "steering-cost", .value = SC_STEERING_COST },
	{ .name = "receive-bound", .value = SC_RECEIVE_BOUND },
	{ .name = "peer", .value = SC_PEER },
	{ .name = "remote-actions", .value = SC_REMOTE_ACTIONS },
	{ .name = "cpumap-vs-rps", .value = SC_CPUMAP_VS_RPS },
	{ .name = "tcp", .value = SC_TCP },
	{ .name = "nic-hash", .value = SC_NIC_HASH },
	{ .name = "skewed", .value = SC_SKEWED },
	{ .name = "threaded-napi", .value = SC_THREADED_NAPI },
	{}
};

static const char *const control_names[CONTROL_TIMINGS] = {
	[CT_FLOOR_IDLE] = "floor_idle",
	[CT_SET_IDLE] = "set_idle",
	[CT_STATUS_IDLE] = "status_idle",
	[CT_FLOOR_FLOOD] = "floor_flood",
	[CT_SET_FLOOD] = "set_flood",
	[CT_STATUS_FLOOD] = "status_flood",
	[CT_UNLOAD_FLOOD] = "unload_flood",
};

static const char *const flood_op_names[FLOOD_OPS] = {
	[FO_MTU_CHANGE] = "ip_link_set_mtu",
	[FO_NETLINK_NOOP] = "netlink_noop",
	[FO_CPUSTEER_SET] = "cpusteer_set",
};

const char *flood_op_name(enum flood_op op)
{
	return op < FLOOD_OPS ? flood_op_names[op] : "unknown";
}

const char *control_timing_name(enum control_timing t)
{
	return t < CONTROL_TIMINGS ? control_names[t] : "unknown";
}

const char *bench_scenario_name(enum bench_scenario sc)
{
	return sc == SC_EXTERNAL ? "external" : name_of(bench_scenario_names, sc, "unknown");
}

double bench_headline(const struct bench_case *c, const struct bench_figures *f)
{
	if (c->tcp)
		return f->gbps;
	return c->scenario == SC_PEER ? f->delivered_mpps : f->mpps;
}

/* ---- the case table ---- */

/* NAME may hold a %u for the flow count. A baseline of -1 makes the case
 * its own baseline. Returns the new case's index.
 */
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
	c->threaded = -1;
	c->threaded_seen = -1;
	c->tcp = tcp;
	c->compare_to = -1;
	c->compare_ratio = NAN;
	return r->ncases++;
}

/* cpusteer's no-touch floor and its 5-tuple steering (--remote drop), the
 * second compared with the first. Returns the floor's index.
 */
static int add_floor_and_steering(struct bench_result *r, enum bench_scenario sc,
				  const char *floor, const char *floor_what, const char *steer,
				  const char *steer_what, __u32 flows)
{
	int b = add_case(r, sc, floor, floor_what, -1, RX_NOTOUCH, "drop", flows, -1, false);

	add_case(r, sc, steer, steer_what, b, RX_STEER, "drop", flows, -1, false);
	return b;
}

static void add_steering_cost(struct bench_result *r, __u32 flows)
{
	add_floor_and_steering(r, SC_STEERING_COST, "notouch-1flow", "no-touch floor, 1 flow",
			       "steer-1flow", "5-tuple steering, 1 flow", 1);
	if (flows > 1)
		add_floor_and_steering(r, SC_STEERING_COST, "notouch-%uflows",
				       "no-touch floor, N flows", "steer-%uflows",
				       "5-tuple steering, N flows", flows);
}

/* The pair of steering-cost where the receiving core is the bottleneck:
 * the generator and the program share it, and every frame goes to the
 * other CPUs, whose drop is cheaper than what the receiving core does. The
 * ratio is then what steering costs that core, in frames per second.
 */
static void add_receive_bound(struct bench_result *r, __u32 flows)
{
	int b = add_floor_and_steering(r, SC_RECEIVE_BOUND, "notouch-%uflows",
				       "no-touch floor, N flows, targets off the generator's CPU",
				       "steer-%uflows",
				       "5-tuple steering, N flows, targets off the generator's CPU",
				       flows);

	r->cases[b].spare_generator_cpu = r->cases[b + 1].spare_generator_cpu = true;
}

/* xdp-bench redirect-cpu in three of its program modes beside cpusteer's
 * floor and steering, all over every online CPU with --remote drop: each
 * program's ratios to its own no-touch mode, and cpusteer's steering
 * against xdp-bench's l4-hash, which hashes the flow too.
 */
static void add_peer(struct bench_result *r, __u32 flows)
{
	static const struct {
		const char *mode, *name, *what;
	} modes[] = {
		{ "no-touch", "xdp-bench-no-touch",
		  "xdp-bench redirect-cpu --program-mode no-touch" },
		{ "round-robin", "xdp-bench-round-robin",
		  "xdp-bench redirect-cpu --program-mode round-robin" },
		{ "l4-hash", "xdp-bench-l4-hash", "xdp-bench redirect-cpu --program-mode l4-hash" },
	};
	int b = r->ncases, i, c = b;

	for (i = 0; i < (int)(sizeof(modes) / sizeof(modes[0])); i++) {
		c = add_case(r, SC_PEER, modes[i].name, modes[i].what, b, RX_XDP_BENCH, "drop",
			     flows, -1, false);
		r->cases[c].peer_mode = modes[i].mode;
	}
	b = add_floor_and_steering(r, SC_PEER, "cpusteer-notouch", "cpusteer's no-touch floor",
				   "cpusteer-steer", "cpusteer's 5-tuple steering, default hash",
				   flows);
	r->cases[b + 1].compare_to = c;
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

/* The cost of reading the NIC's hash against computing the default one, in
 * the kernel's run time of the program per frame: a veth gives the hash
 * only for frames its peer's stack sent, so the traffic is iperf3 over
 * UDP, four streams of small datagrams, steered into the stack.
 */
static void add_nic_hash(struct bench_result *r)
{
	int b, i;

	b = add_case(r, SC_NIC_HASH, "stack-multilinear",
		     "iperf3 UDP x4, 18-byte datagrams, steered by multilinear", -1, RX_STEER, "none",
		     4, -1, false);
	i = add_case(r, SC_NIC_HASH, "stack-nic",
		     "the same, --hash nic: the veth's RX hash", b, RX_STEER, "none", 4, -1, false);
	r->cases[i].hash = "nic";
	for (i = b; i < r->ncases; i++)
		r->cases[i].udp = true;
}

/* One flood per side, whatever --runs says: a minute of each is long
 * enough, and its figures are the loop's many timings, not a median.
 */
static void add_threaded_napi(struct bench_result *r, __u32 flows)
{
	int b;

	b = add_case(r, SC_THREADED_NAPI, "threaded-off",
		     "steering, threaded NAPI off, control plane in a loop", -1, RX_STEER, "drop",
		     flows, -1, false);
	r->cases[b].threaded = 0;
	b = add_case(r, SC_THREADED_NAPI, "threaded-on",
		     "steering, threaded NAPI on, control plane in a loop", b, RX_STEER, "drop",
		     flows, -1, false);
	r->cases[b].threaded = 1;
}

static void add_skewed(struct bench_result *r, __u32 flows)
{
	int b, i;

	b = add_case(r, SC_SKEWED, "skewed-static",
		     CLI_NUMBER(SKEW_ELEPHANTS) " elephants with " CLI_NUMBER(SKEW_SHARE)
		     "% of the frames on one CPU, static table", -1, RX_STEER, "drop", flows, -1,
		     false);
	i = add_case(r, SC_SKEWED, "skewed-balance",
		     "the same, cpusteer balance --interval " CLI_NUMBER(SKEW_INTERVAL) " running", b,
		     RX_STEER, "drop", flows, -1, false);
	r->cases[i].balance = true;
	for (i = b; i < r->ncases; i++) {
		r->cases[i].elephants = SKEW_ELEPHANTS;
		r->cases[i].elephant_share = SKEW_SHARE;
	}
}

static int alloc_runs(struct bench_result *r)
{
	struct bench_case *c;
	int i;

	for (i = 0; i < r->ncases; i++) {
		c = &r->cases[i];
		c->runs = calloc(r->runs, sizeof(struct bench_figures));
		if (c->balance)
			c->tallies = calloc(r->runs, sizeof(*c->tallies));
		if (!c->runs || (c->balance && !c->tallies))
			return -ENOMEM;
	}
	return 0;
}

int bench_cases_build(struct bench_result *r, unsigned int scenarios)
{
	/* Room for every scenario's cases: 4 + 2 + 5 + 2 + 2 + 4 + 2 + 2 + 2. */
	r->cases = calloc(25, sizeof(*r->cases));
	if (!r->cases)
		return -ENOMEM;
	if (scenarios & (1u << SC_STEERING_COST))
		add_steering_cost(r, r->flows);
	if (scenarios & (1u << SC_RECEIVE_BOUND))
		add_receive_bound(r, r->flows);
	if (scenarios & (1u << SC_PEER))
		add_peer(r, r->flows);
	add_others(r, scenarios, r->flows);
	if (scenarios & (1u << SC_NIC_HASH))
		add_nic_hash(r);
	if (scenarios & (1u << SC_SKEWED))
		add_skewed(r, r->flows);
	if (scenarios & (1u << SC_THREADED_NAPI))
		add_threaded_napi(r, r->flows);
	return alloc_runs(r);
}

int bench_cases_external(struct bench_result *r, const char *dev, bool steering)
{
	r->cases = calloc(1, sizeof(*r->cases));
	if (!r->cases)
		return -ENOMEM;
	r->runs = 1;
	add_case(r, SC_EXTERNAL, dev, steering ? "cpusteer loaded" : "no cpusteer instance", -1,
		 RX_EXTERNAL, NULL, 0, -1, false);
	return alloc_runs(r);
}

void bench_cases_free(struct bench_result *r)
{
	int i, op;

	for (i = 0; i < r->ncases; i++) {
		free(r->cases[i].runs);
		free(r->cases[i].tallies);
		for (op = 0; op < FLOOD_OPS; op++)
			free(r->cases[i].ops[op].ms);
	}
	free(r->cases);
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
	if (c->compare_to < 0)
		return;
	base = &r->cases[c->compare_to];
	n = c->nruns < base->nruns ? c->nruns : base->nruns;
	for (k = 0; k < n; k++)
		v[k] = bench_headline(c, &c->runs[k]) / bench_headline(base, &base->runs[k]);
	c->compare_ratio = finite_median(v, n);
}

void bench_cases_summarize(struct bench_result *r)
{
	int i;

	for (i = 0; i < r->ncases; i++)
		summarize_case(r, &r->cases[i]);
}
