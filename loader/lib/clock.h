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

#endif
