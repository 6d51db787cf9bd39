/* SPDX-License-Identifier: GPL-2.0 */
/* Totals of a per-CPU (or per-slot) array, for every layer that reads
 * per-CPU maps or figures: sum_u64() for counts, sum_double() for figures.
 * One loop for both types, not one type for both: a __u64 count past 2^53
 * would lose its low bits as a double.
 */
#ifndef CPUSTEER_SUMS_H
#define CPUSTEER_SUMS_H

#include <linux/types.h>

#define CPUSTEER_DEFINE_SUM(name, type)			\
	static inline type name(const type *v, int n)	\
	{						\
		type s = 0;				\
		int i;					\
							\
		for (i = 0; i < n; i++)			\
			s += v[i];			\
		return s;				\
	}

CPUSTEER_DEFINE_SUM(sum_u64, __u64)
CPUSTEER_DEFINE_SUM(sum_double, double)

#undef CPUSTEER_DEFINE_SUM

#endif
