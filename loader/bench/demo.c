// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench demo: the whole job on a machine without a NIC. It
 * builds the bench's veth pair and namespace, loads cpusteer on the
 * receiving end through its command line, floods it from the live-frames
 * generator while `cpusteer stats` shows the per-CPU view once a second,
 * then prints what was sent and where it went, unloads and removes
 * everything (also after Ctrl-C).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include "bench_commands.h"
#include "log.h"
#include "observer.h"
#include "cli.h"
#include "sums.h"
#include "testbed.h"

/* `cpusteer stats` in the namespace: its display is the operator's view,
 * so the demo shows exactly that rather than a look-alike.
 */
static pid_t spawn_stats(struct testbed *b, __u32 seconds)
{
	char count[16];
	char *argv[] = { (char *)cpusteer_beside(), "stats", b->topo.rx_if, "--count", count, NULL };

	snprintf(count, sizeof(count), "%u", seconds);
	fflush(stdout);
	return topology_spawn_in_ns(&b->topo, argv);
}

static void print_summary(const struct testbed *b, const struct generator *g,
			  const struct bench_figures *f)
{
	double total = sum_double(f->redirected, b->ncpus);
	int cpu;

	printf("\ndemo summary: %.1f s, %u flows, generator on CPU 0\n", g->res.seconds,
	       g->opts.flows);
	printf("  frames sent      %14llu  (%.3f Mpps)\n", (unsigned long long)g->res.sent,
	       g->res.seconds > 0 ? g->res.sent / g->res.seconds / 1e6 : 0);
	printf("  frames received  %14.0f  (%.3f Mpps, counted by the steering program)\n",
	       f->received, g->res.seconds > 0 ? f->received / g->res.seconds / 1e6 : 0);
	printf("  frames dropped   %14.0f  (refused by the receiving veth: ring full)\n", f->dropped);
	if (isfinite(f->queue_drops))
		printf("  queue-full drops %14.0f  (cpumap queues of the target CPUs)\n",
		       f->queue_drops);
	for (cpu = 0; cpu < b->ncpus; cpu++)
		if (f->redirected[cpu])
			printf("  cpu %-3d redirected %14.0f  %5.1f%%\n", cpu, f->redirected[cpu],
			       total > 0 ? 100 * f->redirected[cpu] / total : 0);
	/* The observer's Jain index is over the redirected split already. */
	printf("  Jain index of the split: %.3f (1 = even over %d CPUs)\n", f->jain, b->ncpus);
}

/* Loads, floods while stats runs, measures; the caller cleans up. */
static int demo_run(struct testbed *b, double duration, __u32 flows)
{
	struct observer *ob = NULL;
	struct generator g = {};
	struct bench_figures f;
	pid_t stats = -1;
	int err;

	printf("cpusteer demo: %s (host) -> %s in namespace %s, cpusteer on CPUs %s\n",
	       b->topo.tx_if, b->topo.rx_if, b->topo.netns, b->cpus);
	fflush(stdout);
	if (testbed_load(b, "drop", false, -1, -1))
		return -EIO;
	ob = observer_of_testbed(b, true);
	err = ob ? observer_mark(ob) : -EIO;
	if (!err) {
		stats = spawn_stats(b, (__u32)ceil(duration));
		err = stats < 0 ? stats : generator_start(&g, b, flows, 0, duration);
	}
	while (!err && !generator_done(&g))
		err = bench_sleep(0.05);
	err = generator_stop(&g) ?: err;
	/* stats ends by itself after --count blocks; give it a moment for
	 * the last one (none after an error), then stop it.
	 */
	bench_reap_child(stats, err ? 0 : 2, SIGTERM);
	if (!err)
		bench_sleep(0.1);	/* let the queues drain */
	if (!err && !bench_stop)
		err = observer_figures(ob, &f);
	if (!err && !bench_stop)
		print_summary(b, &g, &f);
	observer_free(ob);
	return err;
}

struct demo_opts {
	__u32 duration, flows;
};

static const struct cli_option demo_options[] = {
	CLI_WHOLE_OPTION("duration", "S", struct demo_opts, duration, 1, 3600,
			 "seconds of traffic, 1-3600", "20"),
	CLI_WHOLE_OPTION("flows", "N", struct demo_opts, flows, 1, TRAFFICGEN_MAX_FLOWS, "flows", "1000"),
	{}
};

static const struct demo_opts demo_start = { .duration = 20, .flows = 1000 };

const struct cli_command demo_command = {
	.name = "demo",
	.summary = "flood a namespaced veth and watch cpusteer spread it over CPUs",
	.about = "Creates a veth pair whose receiving end sits in a namespace of its own,\n"
		 "loads cpusteer there (--cpus: every online CPU, --remote drop), sends\n"
		 "64-byte UDP of N flows into it for S seconds while `cpusteer stats`\n"
		 "shows the per-CPU view once a second, then prints frames sent and\n"
		 "received, the split over CPUs and its Jain index, unloads and removes\n"
		 "everything. Ctrl-C stops early and cleans up the same way.\n",
	.groups = { { demo_options, 0 } },
	.start = &demo_start,
	.run = cmd_demo,
};

int cmd_demo(int argc, char **argv)
{
	struct demo_opts o = demo_start;
	struct testbed b;
	int operand, err;

	err = cli_parse(&demo_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	if (require_root("demo"))
		return 1;
	err = testbed_open(&b);
	if (!err)
		err = demo_run(&b, o.duration, o.flows);
	testbed_close(&b);
	if (bench_stop || err == -EINTR) {
		log_err("demo: interrupted; cpusteer unloaded and the test bed removed");
		return 130;
	}
	if (!err)
		printf("cpusteer unloaded, test bed removed\n");
	return err ? 1 : 0;
}
