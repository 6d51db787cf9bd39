// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench bench (throughput): traffic from the live-frames
 * generator, or iperf3, through a veth into a namespace where cpusteer (or
 * RPS, or nothing) receives it; each case measured several times, medians
 * and run-by-run ratios to a baseline reported.
 *
 * cpusteer is driven through its own CLI inside the namespace, as an
 * operator would (testbed.c); what the receiver counted is read by an
 * observer (observer.c). This file is the run loop: it sets each case's
 * receiver up, sends the traffic, and times the control plane under load.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench_iperf3.h"
#include "bench_live.h"
#include "bench_peer.h"
#include "bench_report.h"
#include "flood_loop.h"
#include "instance.h"
#include "kernel_features.h"
#include "pin_tree.h"
#include "kernel_log.h"
#include "log.h"

/* ---- receivers ---- */

struct bench_ctx {
	struct testbed bed;
	struct bench_result *r;
	int gen_cpu;
	char spare_cpus[64];	/* the online CPUs but gen_cpu; empty when none */
	const char *iperf3;	/* path, or NULL when not installed */
	char xdp_bench[256];	/* r->xdp_bench points here */
	struct peer_run peer;
	unsigned int run;
};

/* skewed: bucket counters for balance, and the key that stacks the
 * elephants on one CPU.
 */
static int load_steering(struct bench_ctx *x, const struct bench_case *c)
{
	char *skewed[] = { "--bucket-stats", "--key", x->r->skew.hex, NULL };
	char *hash[] = { "--hash", (char *)c->hash, NULL };

	return testbed_load_extra(&x->bed, c->spare_generator_cpu ? x->spare_cpus : NULL,
				  c->remote, c->receiver == RX_NOTOUCH, c->gro, c->threaded,
				  c->elephants ? skewed : c->hash ? hash : NULL);
}

static int receiver_setup(struct bench_ctx *x, struct bench_case *c)
{
	struct testbed *b = &x->bed;
	int err;

	switch (c->receiver) {
	case RX_STEER:
	case RX_NOTOUCH:
		return load_steering(x, c);
	case RX_RPS:
		err = testbed_set_gro(b, true);
		return err ?: testbed_set_rps(b, true);
	case RX_PLAIN:
		return c->gro >= 0 ? testbed_set_gro(b, c->gro) : 0;
	case RX_XDP_BENCH:
		return peer_start(&x->peer, b, x->r->xdp_bench, c->peer_mode, c->remote, b->cpus,
				  c->failed, sizeof(c->failed));
	default:
		return 0;
	}
}

/* Puts the receiver back as topology_create left it: no XDP, GRO off
 * (the veth default), rps_cpus 0. xdp-bench gives its own count of the
 * frames into *f.
 */
static int receiver_teardown(struct bench_ctx *x, struct bench_case *c, struct bench_figures *f)
{
	struct testbed *b = &x->bed;
	int err;

	switch (c->receiver) {
	case RX_STEER:
	case RX_NOTOUCH:
		return testbed_unload(b);
	case RX_XDP_BENCH:
		return peer_stop(&x->peer, b, &f->peer_counted, c->failed, sizeof(c->failed));
	case RX_RPS:
		err = testbed_set_rps(b, false);
		return testbed_set_gro(b, false) ?: err;
	case RX_PLAIN:
		return c->gro > 0 ? testbed_set_gro(b, false) : 0;
	default:
		return 0;
	}
}

/* ---- one measured run ---- */

static void case_label(const struct bench_ctx *x, const struct bench_case *c, char *buf,
		       size_t len)
{
	snprintf(buf, len, "%s/%s run %u/%u", bench_scenario_name(c->scenario), c->name,
		 x->run + 1, x->r->runs);
}

/* The case's traffic: its flows, and its elephants among them. */
static void case_traffic(const struct bench_ctx *x, const struct bench_case *c, double seconds,
			 struct trafficgen_opts *o)
{
	testbed_traffic(&x->bed, c->flows, x->gen_cpu, seconds, o);
	o->elephants = c->elephants;
	o->elephant_share = c->elephant_share;
}

/* One flood of `seconds`; a threaded-napi case's with the control loop
 * running.
 */
static int run_generated(struct bench_ctx *x, struct bench_case *c, struct observer *ob,
			 const char *label, double seconds, struct bench_figures *f)
{
	bool loop = c->scenario == SC_THREADED_NAPI;
	struct watch_until u = {};
	struct flood_loop l = {};
	struct trafficgen_opts o;
	struct generator g;
	int err, gerr, lerr;

	case_traffic(x, c, seconds, &o);
	err = observer_mark(ob);
	if (!err)
		err = generator_start_with(&g, &o);
	if (err)
		return err;
	if (loop)
		err = flood_loop_start(&l, &x->bed, c);
	u.g = &g;
	if (!err)
		err = observer_watch(ob, label, &u);
	lerr = flood_loop_stop(&l);
	gerr = generator_stop(&g);
	if (err || gerr || lerr)
		return err ?: gerr ?: lerr;
	observer_final_figures(ob, f);
	x->r->transmit = g.res.transmit;
	f->sent = g.res.sent;
	f->seconds = g.res.seconds;
	bench_figures_rates(f);
	return 0;
}

/* Balance gets a flood of its own to converge on before the measured
 * one, and runs on through it: the figures are those of the table it
 * settled on, still at work. The first flood's end is waited out, so
 * that no frame of it is counted in the second.
 */
static int run_balanced(struct bench_ctx *x, struct bench_case *c, struct observer *ob,
			const char *label, struct bench_figures *f)
{
	struct bench_figures settling;
	struct balance_run bal;
	char first[112];
	int err, berr;

	err = balance_start(&bal, &x->bed);
	if (err)
		return err;
	snprintf(first, sizeof(first), "%s settling", label);
	err = run_generated(x, c, ob, first, SKEW_SETTLE_S, &settling);
	if (!err)
		err = run_generated(x, c, ob, label, x->r->duration, f);
	berr = balance_stop(&bal, &c->tallies[c->nruns]);
	return err ?: berr;
}

/* --dev: whatever traffic comes from elsewhere, for --duration. */
static int run_outside(struct bench_ctx *x, struct observer *ob, const char *label,
		       struct bench_figures *f)
{
	struct watch_until u = { .end = bench_now() + x->r->duration };
	int err = observer_mark(ob);

	err = err ?: observer_watch(ob, label, &u);
	return err ?: observer_figures(ob, f);
}

static int run_flood(struct bench_ctx *x, struct bench_case *c, struct observer *ob,
		     const char *label, struct bench_figures *f)
{
	if (x->bed.device)
		return run_outside(x, ob, label, f);
	if (c->tcp || c->udp)
		return iperf3_run(&x->bed, x->iperf3, c->udp, x->r->duration, ob, label, f);
	if (c->balance)
		return run_balanced(x, c, ob, label, f);
	return run_generated(x, c, ob, label,
			     c->scenario == SC_THREADED_NAPI ? x->r->flood_duration :
							       x->r->duration, f);
}

/* A threaded-napi case also reads the kernel log of its own side, from
 * before the load that turns threaded NAPI on or off to after the unload.
 */
static int run_case(struct bench_ctx *x, struct bench_case *c, struct bench_figures *f)
{
	bool steering = c->receiver == RX_STEER || c->receiver == RX_NOTOUCH;
	int kmsg = c->scenario == SC_THREADED_NAPI ? kernel_log_open() : -1;
	struct observer *ob;
	bool threaded;
	char label[96];
	int err, terr;

	err = receiver_setup(x, c);
	if (err) {
		kernel_log_scan(kmsg, &c->kmsg);
		return err;
	}
	if (c->threaded >= 0 && !testbed_threaded_napi(&x->bed, &threaded))
		c->threaded_seen = threaded;
	case_label(x, c, label, sizeof(label));
	if (c->receiver == RX_XDP_BENCH)
		ob = observer_of_cpumap(&x->bed, x->peer.prog_id, x->peer.cpumap_id);
	else
		ob = observer_of_testbed(&x->bed, steering);
	err = ob ? run_flood(x, c, ob, label, f) : -EIO;
	observer_free(ob);
	terr = receiver_teardown(x, c, f);
	kernel_log_scan(kmsg, &c->kmsg);
	return err ?: terr;
}

/* ---- control plane under load ---- */

/* Runs and times one command, after a pause that lets a flood settle. */
static int timed_cli(struct bench_ctx *x, char *const args[], enum control_timing t)
{
	struct control_timings *ct = &x->r->control[t];
	double ms;
	int err = bench_sleep(0.1);

	if (err)
		return err;
	if (testbed_cli(&x->bed, args, &ms))
		return -EIO;
	if (ct->n < sizeof(ct->ms) / sizeof(ct->ms[0]))
		ct->ms[ct->n++] = ms;
	return 0;
}

/* The floor, `set` (to one CPU and back) and `status`, idle and while the
 * generator floods the steered receiver, and `unload` under the flood:
 * what an operator waits for, on a quiet machine and on a busy one.
 */
static int time_commands(struct bench_ctx *x, bool flood)
{
	char first[16], *rx = x->bed.topo.rx_if;
	char *floor[] = { "status", "--help", NULL };
	char *set_one[] = { "set", rx, "--cpus", first, NULL };
	char *set_all[] = { "set", rx, "--cpus", x->bed.cpus, NULL };
	char *status[] = { "status", rx, NULL };
	enum control_timing base = flood ? CT_FLOOR_FLOOD : CT_FLOOR_IDLE;
	int err;

	snprintf(first, sizeof(first), "%ld", strtol(x->bed.cpus, NULL, 10));
	err = timed_cli(x, floor, base);
	err = err ?: timed_cli(x, set_one, base + CT_SET_IDLE - CT_FLOOR_IDLE);
	err = err ?: timed_cli(x, set_all, base + CT_SET_IDLE - CT_FLOOR_IDLE);
	err = err ?: timed_cli(x, status, base + CT_STATUS_IDLE - CT_FLOOR_IDLE);
	return err;
}

static int control_plane(struct bench_ctx *x)
{
	char *unload[] = { "unload", x->bed.topo.rx_if, NULL };
	struct control_timings *c = x->r->control;
	struct generator g;
	int err;

	err = testbed_load(&x->bed, "drop", false, -1, -1);
	err = err ?: time_commands(x, false);
	if (!err)
		err = generator_start(&g, &x->bed, x->r->flows, x->gen_cpu, 3600);
	if (err)
		return err;
	err = bench_sleep(0.3);
	err = err ?: time_commands(x, true);
	err = err ?: timed_cli(x, unload, CT_UNLOAD_FLOOD);
	generator_stop(&g);
	if (!err)
		printf("  %-40s idle: set %.1f ms, status %.1f ms; flood: set %.1f ms, status %.1f ms, unload %.1f ms (floor %.1f / %.1f ms)\n",
		       "control plane", c[CT_SET_IDLE].ms[c[CT_SET_IDLE].n - 1],
		       c[CT_STATUS_IDLE].ms[c[CT_STATUS_IDLE].n - 1],
		       c[CT_SET_FLOOD].ms[c[CT_SET_FLOOD].n - 1],
		       c[CT_STATUS_FLOOD].ms[c[CT_STATUS_FLOOD].n - 1],
		       c[CT_UNLOAD_FLOOD].ms[c[CT_UNLOAD_FLOOD].n - 1],
		       c[CT_FLOOR_IDLE].ms[c[CT_FLOOR_IDLE].n - 1],
		       c[CT_FLOOR_FLOOD].ms[c[CT_FLOOR_FLOOD].n - 1]);
	return err;
}

/* ---- the benchmark ---- */

static bool left_out(const struct bench_ctx *x, const struct bench_case *c)
{
	return ((c->tcp || c->udp) && !x->iperf3) || (c->hash && !kernel_has_rx_hash()) ||
	       (c->spare_generator_cpu && !x->spare_cpus[0]) ||
	       (c->receiver == RX_XDP_BENCH && (!x->r->xdp_bench || c->failed[0])) ||
	       (c->scenario == SC_THREADED_NAPI && x->run);
}

/* Cases take turns run by run, so a slow stretch of a shared machine
 * lands on all of them alike rather than on one. An xdp-bench mode that
 * fails (-ECHILD) is said so and left out from then on.
 */
static int run_all(struct bench_ctx *x, bool control)
{
	struct bench_result *r = x->r;
	struct bench_case *c;
	char label[96];
	int i, err;

	for (x->run = 0; x->run < r->runs; x->run++) {
		for (i = 0; i < r->ncases; i++) {
			c = &r->cases[i];
			if (left_out(x, c))
				continue;
			err = run_case(x, c, &c->runs[c->nruns]);
			if (err == -ECHILD) {
				case_label(x, c, label, sizeof(label));
				printf("  %-40s xdp-bench --program-mode %s failed (%s); left out from here on\n",
				       label, c->peer_mode, c->failed);
				fflush(stdout);
				continue;
			}
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

/* The first case with elephants, or NULL. */
static const struct bench_case *skewed_case(const struct bench_result *r)
{
	int i;

	for (i = 0; i < r->ncases; i++)
		if (r->cases[i].elephants)
			return &r->cases[i];
	return NULL;
}

/* The skewed cases load with a key under which their elephants share one
 * CPU, found once before the first run.
 */
static int choose_skew_key(struct bench_ctx *x)
{
	const struct bench_case *c = skewed_case(x->r);
	struct trafficgen_opts o;

	if (!c)
		return 0;
	case_traffic(x, c, x->r->duration, &o);
	return skew_find_key(x->bed.cpus, &o, &x->r->skew);
}

static void print_intro(const struct bench_ctx *x)
{
	const struct bench_result *r = x->r;
	const struct bench_case *skewed = skewed_case(r);
	bool tcp = false, flood = false, nic = false, spare = false, peer = false;
	int i;

	for (i = 0; i < r->ncases; i++) {
		tcp |= r->cases[i].tcp || r->cases[i].udp;
		nic |= r->cases[i].hash != NULL;
		flood |= r->cases[i].scenario == SC_THREADED_NAPI;
		spare |= r->cases[i].spare_generator_cpu;
		peer |= r->cases[i].scenario == SC_PEER;
	}
	if (x->bed.device) {
		printf("cpusteer bench: %s under outside traffic, %d CPUs (%s online), %u run%s of %.3g s per case\n",
		       r->dev, r->ncpus, x->bed.cpus, r->runs, r->runs == 1 ? "" : "s",
		       r->duration);
		printf("note: every frame %s receives meanwhile is dropped on its target CPU (--remote drop)\n",
		       r->dev);
	} else {
		printf("cpusteer bench: %d CPUs (%s online), %u run%s of %.3g s per case, %u flows, %u-byte UDP frames\n",
		       r->ncpus, x->bed.cpus, r->runs, r->runs == 1 ? "" : "s", r->duration,
		       r->flows, r->frame_size);
		printf("test bed: %s (host) -> %s in namespace %s; generator pinned to CPU %d\n",
		       x->bed.topo.tx_if, x->bed.topo.rx_if, x->bed.topo.netns, x->gen_cpu);
		printf("note: the generator, the receiver's NAPI and the cpumap kthreads share these %d CPUs;\n"
		       "      compare figures side by side within a run, not across machines\n",
		       r->ncpus);
	}
	if (peer && r->xdp_bench)
		printf("peer: %s (%s) and cpusteer in turn, --remote drop over CPUs %s; rates are frames delivered to the target CPUs, counted alike for both\n",
		       r->xdp_bench, r->xdp_bench_version, x->bed.cpus);
	else if (peer)
		printf("note: xdp-bench is not installed (Debian: xdp-tools): the peer scenario runs cpusteer's cases only\n");
	if (flood)
		printf("threaded-napi: one %.3g s flood per side (in the first run only), a control loop meanwhile\n",
		       r->flood_duration);
	if (skewed)
		printf("skewed: %u of the %u flows carry %u%% of the frames; hash key %s (key %u of the search) puts them all on CPU %u; balance first gets a %.3g s flood to settle on\n",
		       skewed->elephants, skewed->flows, skewed->elephant_share, r->skew.hex,
		       r->skew.tried, r->skew.cpu, SKEW_SETTLE_S);
	if (spare && x->spare_cpus[0])
		printf("receive-bound: the generator and the program on CPU %d; cpusteer's targets: CPUs %s\n",
		       x->gen_cpu, x->spare_cpus);
	else if (spare)
		printf("note: CPU %d is the only one online: receive-bound, which targets the others, is skipped\n",
		       x->gen_cpu);
	if (!x->iperf3 && tcp)
		printf("note: iperf3 is not installed: the tcp and nic-hash scenarios are skipped\n");
	if (nic && !kernel_has_rx_hash())
		printf("note: this kernel has no bpf_xdp_metadata_rx_hash (Linux 6.3 and later): stack-nic is skipped\n");
	fflush(stdout);
}

static int finish(struct bench_result *r, const char *json)
{
	int err = 0;

	bench_cases_summarize(r);
	bench_print_summary(r, stdout);
	if (json)
		err = bench_write_files(r, json);
	return err;
}

/* --dev: a real interface under traffic from elsewhere; stats only. */
static int bench_external(struct bench_result *r, const struct bench_live_opts *o)
{
	struct watch_until u = {};
	struct instance_dir d;
	bool steering;
	struct observer *ob;
	struct bench_case *c;
	int err;

	if (!if_nametoindex(o->dev)) {
		log_err("bench: cannot measure %s: no such interface", o->dev);
		return -ENODEV;
	}
	err = instance_dir_init(&d, o->dev);
	if (err)
		return err;
	steering = !instance_dir_open(&d, 0);
	instance_dir_close(&d);
	err = bench_cases_external(r, o->dev, steering);
	if (err)
		return err;
	c = &r->cases[0];
	ob = observer_new(r->ncpus, o->dev, open("/proc/net/dev", O_RDONLY | O_CLOEXEC),
			  steering ? &d : NULL);
	if (!ob)
		return -EIO;
	bench_take_stop_signals();
	printf("cpusteer bench: measuring %s for %.3g s (%s)\n", o->dev, o->duration, c->what);
	err = observer_mark(ob);
	u.end = bench_now() + o->duration;
	if (!err)
		err = observer_watch(ob, o->dev, &u);
	if (!err)
		err = observer_figures(ob, &c->runs[0]);
	if (!err)
		c->nruns = 1;
	observer_free(ob);
	return err;
}

/* Our own test bed, or with --dev the real interface, which must run no
 * XDP program: the peer scenario attaches and detaches its own.
 */
static int open_bed(struct bench_ctx *x, const struct bench_live_opts *o)
{
	int err;

	if (o->dev) {
		err = testbed_of_device(&x->bed, o->dev);
		return err ?: peer_receiver_free(&x->bed);
	}
	err = testbed_open(&x->bed);
	x->bed.transmit = o->transmit;
	if (!err)
		testbed_cpus_but(&x->bed, x->gen_cpu, x->spare_cpus, sizeof(x->spare_cpus));
	return err;
}

static void find_xdp_bench(struct bench_ctx *x)
{
	struct bench_result *r = x->r;

	r->xdp_bench = program_path("xdp-bench", x->xdp_bench, sizeof(x->xdp_bench));
	if (r->xdp_bench)
		peer_version(&x->bed, r->xdp_bench, r->xdp_bench_version,
			     sizeof(r->xdp_bench_version));
}

static int bench_testbed(struct bench_ctx *x, const struct bench_live_opts *o)
{
	struct bench_result *r = x->r;
	char path[256];
	int err, stats_fd, kmsg;

	/* Its cases run once whatever --runs says: alone, it is one run. */
	if (o->scenarios == 1u << SC_THREADED_NAPI)
		r->runs = 1;
	err = bench_cases_build(r, o->scenarios);
	if (err)
		return err;
	x->iperf3 = program_path("iperf3", path, sizeof(path));
	kmsg = kernel_log_open();
	/* Run-time statistics stay on while this fd is open, and go off
	 * with it, also when the run dies.
	 */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		log_err("note: cannot enable BPF run-time statistics (%s): no ns/packet figures",
			strerror(errno));
	err = open_bed(x, o);
	if (!err && (o->scenarios & (1u << SC_PEER)))
		find_xdp_bench(x);
	if (!err)
		err = choose_skew_key(x);
	if (!err) {
		print_intro(x);
		err = run_all(x, o->scenarios & (1u << SC_STEERING_COST));
	}
	testbed_close(&x->bed);
	if (stats_fd >= 0)
		close(stats_fd);
	kernel_log_scan(kmsg, &r->kmsg);
	return err;
}

int bench_live(const struct bench_live_opts *o)
{
	struct bench_result r = {
		.duration = o->duration, .runs = o->runs, .flows = o->flows, .dev = o->dev,
		.flood_duration = o->flood_duration,
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
	err = o->dev && !o->scenarios ? bench_external(&r, o) : bench_testbed(&x, o);
	if (bench_stop || err == -EINTR) {
		bench_cases_free(&r);
		if (o->dev)
			log_err("bench: interrupted; nothing of the run is left on %s", o->dev);
		else
			log_err("bench: interrupted; cpusteer unloaded and the test bed removed");
		return 130;
	}
	if (!err)
		err = finish(&r, o->json);
	bench_cases_free(&r);
	return err ? 1 : 0;
}
