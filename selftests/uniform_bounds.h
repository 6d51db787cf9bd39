/* SPDX-License-Identifier: GPL-2.0 */
/* What a uniform random assignment of flows gives, for the distribution
 * tests (test_hash_distribution.c; docs/hash-distribution.md): how far a
 * count of flows strays from its mean, and how likely a chi-square
 * statistic is.
 */
#ifndef CPUSTEER_UNIFORM_BOUNDS_H
#define CPUSTEER_UNIFORM_BOUNDS_H

#include <math.h>
#include <linux/types.h>

/* P(X > b) for X binomial with n trials of probability p: the terms
 * from b + 1 on, each from its logarithm, until they no longer add to
 * the sum; for b at the mean or above, where they only shrink. Good to
 * about ten digits for n = 65,536, where the logarithms are near 10^6.
 */
static inline double binomial_tail_above(__u32 n, double p, __u32 b)
{
	double lp = log(p), lq = log1p(-p), ln = lgamma(n + 1.0), sum = 0, t;
	__u32 k;

	for (k = b + 1; k <= n; k++) {
		t = exp(ln - lgamma(k + 1.0) - lgamma(n - k + 1.0) + k * lp + (n - k) * lq);
		sum += t;
		if (t < sum * 1e-17)
			break;
	}
	return sum;
}

/* The smallest count that X exceeds with probability at most `alpha`. */
static inline __u32 binomial_bound(__u32 n, double p, double alpha)
{
	__u32 b = n * p;

	while (binomial_tail_above(n, p, b) > alpha)
		b++;
	return b;
}

/* The chance that a chi-square variable of `dof` degrees of freedom
 * reaches x, by the Wilson-Hilferty cube-root normal approximation: for
 * 511 degrees of freedom 0.2% above the exact p at 0.001, 2.5% above it
 * at 5e-8 (docs/hash-distribution.md); so a little less ready to reject.
 */
static inline double chi_square_p(double x, double dof)
{
	double v = 2 / (9 * dof), z = (cbrt(x / dof) - (1 - v)) / sqrt(v);

	return erfc(z / sqrt(2)) / 2;
}

#endif
