/* SPDX-License-Identifier: GPL-2.0 */
/* Small statistics shared by the benchmarks and `balance`: medians of
 * runs, percentiles of latencies and Jain's fairness index of a per-CPU
 * load.
 */
#ifndef CPUSTEER_STATS_MATH_H
#define CPUSTEER_STATS_MATH_H

#include <stddef.h>

/* Median of n values; sorts a copy, so `v` keeps its order. */
double median(const double *v, size_t n);

/* The p-th percentile (0 <= p <= 100) by nearest rank: the smallest of
 * the n values that at least p percent of them do not exceed. Always one
 * of the values, so never above the largest: with fewer than 100 values
 * the 99th is the largest. NAN for no values or p out of range; `v`
 * keeps its order.
 */
double percentile(const double *v, size_t n, double p);

/* (sum x)^2 / (n * sum x^2): 1 when all n loads are equal, 1/n when one
 * CPU carries everything.
 */
double jain_index(const double *x, size_t n);

#endif
