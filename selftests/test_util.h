/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal test harness for the C selftests. Each test prints one line:
 *   ok - NAME
 *   not ok - NAME: what was expected and what came
 *   skip - NAME: why
 * selftests/run.sh counts these lines across all test programs.
 */
#ifndef CPUSTEER_TEST_UTIL_H
#define CPUSTEER_TEST_UTIL_H

#include <stdio.h>
#include <string.h>
#include <linux/types.h>

static int tu_failures;		/* in the current test */
static const char *tu_skip;	/* set by SKIP() */
static int tu_total_failed;

#define ASSERT_EQ(actual, expected, what)                                          \
	do {                                                                       \
		long long _a = (long long)(actual), _e = (long long)(expected);    \
		if (_a != _e) {                                                    \
			printf("#   %s:%d %s: expected %lld, got %lld\n", __FILE__,  \
			       __LINE__, what, _e, _a);                            \
			tu_failures++;                                             \
		}                                                                  \
	} while (0)

#define ASSERT_NE(actual, unexpected, what)                                        \
	do {                                                                       \
		long long _a = (long long)(actual), _u = (long long)(unexpected);  \
		if (_a == _u) {                                                    \
			printf("#   %s:%d %s: expected anything but %lld\n",        \
			       __FILE__, __LINE__, what, _u);                      \
			tu_failures++;                                             \
		}                                                                  \
	} while (0)

#define ASSERT_TRUE(cond, what)                                                    \
	do {                                                                       \
		if (!(cond)) {                                                     \
			printf("#   %s:%d %s: expected true: %s\n", __FILE__,       \
			       __LINE__, what, #cond);                             \
			tu_failures++;                                             \
		}                                                                  \
	} while (0)

#define SKIP(why)                                                                  \
	do {                                                                       \
		tu_skip = (why);                                                   \
		return;                                                            \
	} while (0)

#define RUN_TEST(fn)                                                               \
	do {                                                                       \
		tu_failures = 0;                                                   \
		tu_skip = NULL;                                                    \
		fn();                                                              \
		if (tu_skip)                                                       \
			printf("skip - %s: %s\n", #fn, tu_skip);                   \
		else if (tu_failures) {                                            \
			printf("not ok - %s\n", #fn);                              \
			tu_total_failed++;                                         \
		} else                                                             \
			printf("ok - %s\n", #fn);                                  \
		fflush(stdout);                                                    \
	} while (0)

/* splitmix64: reproducible pseudo-random numbers, the same on every run
 * for the same seed, so a failing case can be run again.
 */
static __u64 rng_state;

static inline void rng_seed(__u64 seed)
{
	rng_state = seed;
}

static inline __u32 rng(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (__u32)((z ^ (z >> 31)) >> 16);
}

#endif
