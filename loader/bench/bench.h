/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPUSTEER_BENCH_H
#define CPUSTEER_BENCH_H

#include <stdbool.h>
#include <linux/types.h>

/* Runs per case, of either kind: the medians are taken over arrays of
 * this size.
 */
#define BENCH_MAX_RUNS 101

int bench_program(__u32 runs, __u32 repeat, bool as_json);

#endif
