/* SPDX-License-Identifier: GPL-2.0 */
/* Small statistics shared by the benchmarks and stats: medians of runs and
 * Jain's fairness index of a per-CPU load.
 */
#ifndef CPUSTEER_STATS_MATH_H
#define CPUSTEER_STATS_MATH_H

#include <stddef.h>

/* Median of n values; sorts a copy, so `v` keeps its order. */
double median(const double *v, size_t n);

/* (sum x)^2 / (n * sum x^2): 1 when all n loads are equal, 1/n when one
 * CPU carries everything.
 */
double jain_index(const double *x, size_t n);

#endif
