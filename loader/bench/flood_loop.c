// SPDX-License-Identifier: GPL-2.0
/* The control loop of the threaded-napi scenario (see flood_loop.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flood_loop.h"

/* The MTUs the loop alternates between; a veth starts at the first. */
#define MTU_A 1500
#define MTU_B 1400

/* Between two operations: the flood gets the CPUs back for a moment, as
 * between an operator's commands, and the loop does not become a second
 * load of its own.
 */
#define LOOP_PAUSE_S 0.05

static int record(struct flood_timings *t, double ms)
{
	double *v;

	if (t->n == t->cap) {
		v = realloc(t->ms, (t->cap ? t->cap * 2 : 256) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->ms = v;
		t->cap = t->cap ? t->cap * 2 : 256;
	}
	t->ms[t->n++] = ms;
	return 0;
}

static int set_mtu(struct flood_loop *l, unsigned int mtu, double *ms)
{
	char num[16];
	char *args[] = { "link", "set", "dev", l->bed->topo.rx_if, "mtu", num, NULL };
	int err;

	snprintf(num, sizeof(num), "%u", mtu);
	err = testbed_ip(l->bed, args, ms);
	if (!err)
		l->mtu = mtu;
	return err;
}

/* Operation `op` for the k-th time: the real changes alternate, so each
 * one changes something.
 */
static int run_op(struct flood_loop *l, enum flood_op op, unsigned int k, double *ms)
{
	char *set[] = { "set", l->bed->topo.rx_if, "--cpus",
			k % 2 ? l->bed->cpus : l->one_cpu, NULL };

	switch (op) {
	case FO_MTU_CHANGE:
		return set_mtu(l, l->mtu == MTU_A ? MTU_B : MTU_A, ms);
	case FO_NETLINK_NOOP:
		return set_mtu(l, l->mtu, ms);
	default:
		return testbed_cli(l->bed, set, ms) ? -EIO : 0;
	}
}

static void *loop_main(void *arg)
{
	struct flood_loop *l = arg;
	unsigned int i;
	double ms;
	int err = 0;

	for (i = 0; !err && !l->stop && !bench_stop; i++) {
		err = run_op(l, i % FLOOD_OPS, i / FLOOD_OPS, &ms);
		if (!err)
			err = record(&l->c->ops[i % FLOOD_OPS], ms);
		if (!err)
			bench_sleep(LOOP_PAUSE_S);
	}
	l->err = err;
	return NULL;
}

int flood_loop_start(struct flood_loop *l, struct testbed *b, struct bench_case *c)
{
	int err;

	memset(l, 0, sizeof(*l));
	l->bed = b;
	l->c = c;
	l->mtu = MTU_A;
	snprintf(l->one_cpu, sizeof(l->one_cpu), "%ld", strtol(b->cpus, NULL, 10));
	err = bench_thread_start(&l->thread, loop_main, l, "control loop");
	if (err)
		return err;
	l->running = true;
	return 0;
}

int flood_loop_stop(struct flood_loop *l)
{
	int err;

	if (!l->running)
		return 0;
	l->stop = 1;
	pthread_join(l->thread, NULL);
	l->running = false;
	err = l->mtu != MTU_A ? set_mtu(l, MTU_A, NULL) : 0;
	return l->err ?: err;
}
