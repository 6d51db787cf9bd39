/* SPDX-License-Identifier: GPL-2.0 */
/* The control loop of the threaded-napi scenario: while the generator
 * floods the receiver, a thread of its own changes the receiving device
 * again and again (its MTU, an RTM_NEWLINK that changes nothing, the
 * steering CPUs) and records how long each operation took.
 */
#ifndef CPUSTEER_FLOOD_LOOP_H
#define CPUSTEER_FLOOD_LOOP_H

#include <pthread.h>
#include "bench_cases.h"
#include "testbed.h"

struct flood_loop {
	pthread_t thread;
	struct testbed *bed;
	struct bench_case *c;		/* its ops[] get the timings */
	char one_cpu[16];		/* the alternative to bed->cpus for `set` */
	unsigned int mtu;		/* what the device has now */
	volatile int stop;
	int err;
	bool running;
};

/* Starts the loop on the test bed's receiver, cpusteer loaded there. */
int flood_loop_start(struct flood_loop *l, struct testbed *b, struct bench_case *c);
/* Stops it, waits, and puts the MTU back; returns the loop's error. */
int flood_loop_stop(struct flood_loop *l);

#endif
