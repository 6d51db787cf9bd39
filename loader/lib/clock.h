/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks measurements use: monotonic, so that a wall-clock step
 * during a run never shows up as a rate, and for the cost of a test run,
 * the thread's CPU time.
 */
#ifndef CPUSTEER_CLOCK_H
#define CPUSTEER_CLOCK_H

#include <time.h>

/* `id`'s time now, in nanoseconds. */
static inline double clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline double monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time: what a system call that works in the
 * caller's context (a BPF test run) costs, without the time the thread
 * waited for a CPU. On a shared machine that wait came in whole scheduler
 * ticks and swamped figures of a few nanoseconds a packet.
 */
static inline double thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

#endif
