// SPDX-License-Identifier: GPL-2.0
/* The benchmark's statistics (loader/bench/stats_math.c): percentiles by
 * nearest rank, and the median beside them.
 */
#include <math.h>
#include <stdio.h>
#include "stats_math.h"
#include "test_util.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_percentile_of_nothing_is_nan(void)
{
	double one = 5;

	ASSERT_TRUE(isnan(percentile(&one, 0, 99)), "no values");
}

static void test_percentile_out_of_range_is_nan(void)
{
	double v[] = { 1, 2, 3 };

	ASSERT_TRUE(isnan(percentile(v, N(v), -1)), "p = -1");
	ASSERT_TRUE(isnan(percentile(v, N(v), 100.5)), "p = 100.5");
	ASSERT_TRUE(isnan(percentile(v, N(v), NAN)), "p = NAN");
}

static void test_percentile_of_one_value(void)
{
	double v = 42.5;

	ASSERT_EQ(percentile(&v, 1, 0) * 10, 425, "p0");
	ASSERT_EQ(percentile(&v, 1, 99) * 10, 425, "p99");
}

/* 1..100 in reverse: the p-th percentile is p itself, p0 the smallest. */
static void test_percentile_of_hundred(void)
{
	double v[100];
	size_t i;

	for (i = 0; i < N(v); i++)
		v[i] = 100 - i;
	ASSERT_EQ(percentile(v, N(v), 0), 1, "p0");
	ASSERT_EQ(percentile(v, N(v), 1), 1, "p1");
	ASSERT_EQ(percentile(v, N(v), 50), 50, "p50");
	ASSERT_EQ(percentile(v, N(v), 99), 99, "p99");
	ASSERT_EQ(percentile(v, N(v), 99.5), 100, "p99.5");
	ASSERT_EQ(percentile(v, N(v), 100), 100, "p100");
	ASSERT_EQ(v[0], 100, "input order kept");
}

/* Fewer than a hundred values: one outlier is the 99th percentile. */
static void test_p99_of_few_is_the_worst(void)
{
	double v[] = { 3, 1, 250, 2, 4, 5, 6, 7, 8, 9 };

	ASSERT_EQ(percentile(v, N(v), 99), 250, "p99 of 10");
	ASSERT_EQ(percentile(v, N(v), 90), 9, "p90 of 10");
}

/* 200 values: the worst two are above p99 only by one rank. */
static void test_p99_of_two_hundred(void)
{
	double v[200];
	size_t i;

	for (i = 0; i < N(v); i++)
		v[i] = i + 1;
	v[17] = 1000;
	ASSERT_EQ(percentile(v, N(v), 99), 199, "p99 of 200");
	ASSERT_EQ(percentile(v, N(v), 100), 1000, "p100 of 200");
}

static void test_median_beside(void)
{
	double odd[] = { 9, 1, 5 }, even[] = { 4, 1, 3, 2 };

	ASSERT_EQ(median(odd, N(odd)), 5, "median of 3");
	ASSERT_EQ(median(even, N(even)) * 2, 5, "median of 4");
	ASSERT_EQ(percentile(odd, N(odd), 50), 5, "p50 of 3");
}

static const struct tu_test tests[] = {
	TU_TEST(test_percentile_of_nothing_is_nan),
	TU_TEST(test_percentile_out_of_range_is_nan),
	TU_TEST(test_percentile_of_one_value),
	TU_TEST(test_percentile_of_hundred),
	TU_TEST(test_p99_of_few_is_the_worst),
	TU_TEST(test_p99_of_two_hundred),
	TU_TEST(test_median_beside),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
