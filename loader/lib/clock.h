/* SPDX-License-Identifier: GPL-2.0 */
/* The one clock every measurement uses: monotonic, so a wall-clock step
 * during a run never shows up as a rate.
 */
#ifndef CPUSTEER_CLOCK_H
#define CPUSTEER_CLOCK_H

#include <time.h>

static inline double monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The calling thread's CPU time: what a system call that works in the
 * caller's context (a BPF test run) costs, without the time the thread
 * waited for a CPU. On a shared machine that wait came in whole scheduler
 * ticks and swamped figures of a few nanoseconds a packet.
 */
static inline double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#endif
