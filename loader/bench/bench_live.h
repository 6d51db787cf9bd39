/* SPDX-License-Identifier: GPL-2.0 */
/* Throughput benchmark (`cpusteer-bench bench` without --program): each
 * case of the chosen scenarios run on the test bed (testbed.h) and
 * measured by an observer (observer.h) several times, or with --dev a real
 * interface measured once. The cases and their figures are in bench_cases.h.
 */
#ifndef CPUSTEER_BENCH_LIVE_H
#define CPUSTEER_BENCH_LIVE_H

#include <linux/types.h>
#include "bench_cases.h"
#include "observer.h"
#include "testbed.h"

struct bench_live_opts {
	double duration;
	double flood_duration;		/* threaded-napi */
	unsigned int runs;
	__u32 flows;
	unsigned int scenarios;		/* bit per enum bench_scenario */
	const char *json;
	const char *dev;
	int transmit;			/* enum trafficgen_transmit */
	__u64 given;			/* CLI_BIT(i) for bench's option i given */
};

/* Runs the throughput benchmark; returns an exit code (130 after
 * SIGINT/SIGTERM, everything removed).
 */
int bench_live(const struct bench_live_opts *o);

#endif
