/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP harness for the C selftests. A program lists its tests
 * once, in a table, and the plan ("1..N") is printed from that table
 * before any test runs, so selftests/run.sh can tell a program that
 * stopped early from one that had fewer tests:
 *   static const struct tu_test tests[] = { TU_TEST(fn), ... };
 *   int main(void) { return tu_run(tests, ARRAY_SIZE(tests)); }
 * Each test reports "ok I - NAME", "not ok I - NAME" (after "#" lines
 * saying what was expected and what came) or "ok I - NAME # SKIP why".
 * A test that failed and then skipped is reported "not ok": a skip must
 * not hide what went wrong before it.
 */
#ifndef CPUSTEER_TEST_UTIL_H
#define CPUSTEER_TEST_UTIL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct tu_test {
	const char *name;
	void (*fn)(void);
};

#define TU_TEST(fn) { #fn, fn }

/* The harness's state: one of each in a program, defined here in the
 * file that holds main. A second file linked into the same program (the
 * fixture the test_steer_* programs share) defines TU_STATE_ELSEWHERE
 * before it includes this header and gets declarations of the same
 * objects, so that an ASSERT in it fails the test that called it and
 * its rng() goes on with the sequence the test seeded. Static state
 * would give that file copies of its own: its failures would be lost
 * and its random flows drawn from an unseeded sequence, both silently.
 * A second definition is a link error, not a second counter.
 */
#ifdef TU_STATE_ELSEWHERE
#define TU_STATE extern
#else
#define TU_STATE
#endif

TU_STATE int tu_failures;		/* in the current test */
TU_STATE const char *tu_skip;		/* set by SKIP() */
TU_STATE int tu_total_failed;
TU_STATE size_t tu_done;		/* tests reported so far */

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

/* |actual - expected| <= tol, for doubles; fabs() needs <math.h> in the
 * test that uses it.
 */
#define ASSERT_NEAR(actual, expected, tol, what)                                   \
	do {                                                                       \
		double _a = (actual), _e = (expected);                             \
		if (!(fabs(_a - _e) <= (tol))) {                                   \
			printf("#   %s:%d %s: expected %.9f (within %g), got %.9f\n", \
			       __FILE__, __LINE__, what, _e, (double)(tol), _a);   \
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

/* What the code between tu_catch_begin and tu_catch_end wrote to stdout
 * and stderr: the first line of each, and how many lines stderr got.
 */
struct tu_caught {
	int err_lines;
	char err[512], out_first[512];
	FILE *out_file, *err_file;
	int saved_out, saved_err;
};

static inline void tu_catch_begin(struct tu_caught *c)
{
	c->out_file = tmpfile();
	c->err_file = tmpfile();
	c->saved_out = dup(1);
	c->saved_err = dup(2);
	fflush(NULL);
	dup2(fileno(c->out_file), 1);
	dup2(fileno(c->err_file), 2);
}

static inline int tu_first_line(FILE *f, char *first, size_t len)
{
	char line[512];
	int lines = 0;

	rewind(f);
	first[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!lines++)
			snprintf(first, len, "%s", line);
	fclose(f);
	return lines;
}

static inline void tu_catch_end(struct tu_caught *c)
{
	fflush(NULL);
	dup2(c->saved_out, 1);
	dup2(c->saved_err, 2);
	close(c->saved_out);
	close(c->saved_err);
	c->err_lines = tu_first_line(c->err_file, c->err, sizeof(c->err));
	tu_first_line(c->out_file, c->out_first, sizeof(c->out_first));
}

static inline void tu_plan(size_t n)
{
	printf("1..%zu\n", n);
	fflush(stdout);
}

/* Runs the next test of the plan and reports it. */
static inline void tu_run_one(const struct tu_test *t)
{
	size_t i = ++tu_done;

	tu_failures = 0;
	tu_skip = NULL;
	t->fn();
	if (tu_skip && !tu_failures) {
		printf("ok %zu - %s # SKIP %s\n", i, t->name, tu_skip);
	} else if (tu_failures) {
		if (tu_skip)
			printf("#   skipped after failing: %s\n", tu_skip);
		printf("not ok %zu - %s\n", i, t->name);
		tu_total_failed++;
	} else {
		printf("ok %zu - %s\n", i, t->name);
	}
	fflush(stdout);
}

/* Reports every test of the plan not yet run as failed, for when what
 * the rest needs cannot be set up; the plan still matches.
 */
static inline void tu_abort(const struct tu_test *tests, size_t n, const char *why)
{
	while (tu_done < n) {
		printf("#   %s\n", why);
		printf("not ok %zu - %s\n", tu_done + 1, tests[tu_done].name);
		tu_done++;
		tu_total_failed++;
	}
	fflush(stdout);
}

/* Runs tests[from..to) of the plan. */
static inline void tu_run_range(const struct tu_test *tests, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		tu_run_one(&tests[i]);
}

/* The plan, every test, and main's exit status. */
static inline int tu_run(const struct tu_test *tests, size_t n)
{
	tu_plan(n);
	tu_run_range(tests, 0, n);
	return tu_total_failed ? 1 : 0;
}

/* splitmix64: reproducible pseudo-random numbers, the same on every run
 * for the same seed, so a failing case can be run again. Its state is
 * the program's, like the harness's above.
 */
TU_STATE __u64 rng_state;

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
