// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats_math.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A sorted copy of v, for the caller to free; NULL when out of memory. */
static double *sorted_copy(const double *v, size_t n)
{
	double *copy = malloc(n * sizeof(*copy));

	if (!copy)
		return NULL;
	memcpy(copy, v, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), cmp_double);
	return copy;
}

double median(const double *v, size_t n)
{
	double *s, m;

	if (!n || !(s = sorted_copy(v, n)))
		return NAN;
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

double percentile(const double *v, size_t n, double p)
{
	size_t rank;
	double *s, x;

	if (!n || !(p >= 0 && p <= 100) || !(s = sorted_copy(v, n)))
		return NAN;
	rank = (size_t)ceil(p / 100 * n);
	x = s[rank ? rank - 1 : 0];
	free(s);
	return x;
}

double jain_index(const double *x, size_t n)
{
	double sum = 0, sq = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / (n * sq) : NAN;
}
