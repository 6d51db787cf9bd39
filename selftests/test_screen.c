// SPDX-License-Identifier: GPL-2.0
/* Frames redrawn in place on a terminal (loader/lib/screen.c): the rows a
 * frame takes, wrapped lines included, and the escapes that put each
 * frame over the last one, or on a cleared window when the last one may
 * have scrolled or been rewrapped.
 *
 * Not in kernel runs: pure user space, the same on every kernel
 */
#include <stdlib.h>
#include <string.h>
#include "screen.h"
#include "test_util.h"

static void test_rows_count_wrapped_lines(void)
{
	ASSERT_EQ(screen_rows("", 0, 80), 0, "no text");
	ASSERT_EQ(screen_rows("a\n\nb\n", 5, 80), 3, "three lines, one empty");
	ASSERT_EQ(screen_rows("0123456789\n", 11, 10), 1, "a line as wide as the window");
	ASSERT_EQ(screen_rows("0123456789a\n", 12, 10), 2, "a line one wider");
	ASSERT_EQ(screen_rows("0123456789012345678901\nx\n", 25, 10), 4, "three rows and one");
	ASSERT_EQ(screen_rows("ab", 2, 10), 1, "a last line without a newline");
}

/* What screen_draw wrote for `text`, in `out`. */
static void draw(struct screen *s, int rows, int cols, const char *text, char *out, size_t len)
{
	struct screen_size now = { rows, cols };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	screen_draw(s, &now, f, text, strlen(text));
	fclose(f);
	snprintf(out, len, "%s", buf);
	free(buf);
}

#define ASSERT_STR(got, want, what)                                                      \
	do {                                                                             \
		if (strcmp(got, want)) {                                                 \
			printf("#   %s: expected \"%s\", got \"%s\"\n", what, want, got);  \
			tu_failures++;                                                   \
		}                                                                        \
	} while (0)

static void test_each_frame_over_the_last(void)
{
	struct screen s = {};
	char out[256];

	draw(&s, 24, 80, "a\nb\n", out, sizeof(out));
	ASSERT_STR(out, "a\033[K\nb\033[K\n\033[J", "the first frame, where the cursor is");
	draw(&s, 24, 80, "c\n", out, sizeof(out));
	ASSERT_STR(out, "\r\033[2Ac\033[K\n\033[J", "the second, up over the first's 2 rows");
	draw(&s, 24, 3, "12345\n", out, sizeof(out));
	ASSERT_STR(out, "\033[H\033[J12345\033[K\n\033[J", "after a resize, on a cleared window");
	draw(&s, 24, 3, "x\n", out, sizeof(out));
	ASSERT_STR(out, "\r\033[2Ax\033[K\n\033[J", "up over the 2 rows of a wrapped line");
}

static void test_frame_that_scrolled_is_not_reached_for(void)
{
	struct screen s = {};
	char out[256];

	draw(&s, 3, 80, "1\n2\n3\n", out, sizeof(out));
	draw(&s, 3, 80, "1\n", out, sizeof(out));
	ASSERT_STR(out, "\033[H\033[J1\033[K\n\033[J", "after 3 rows in a window of 3");
	draw(&s, 3, 80, "2\n", out, sizeof(out));
	ASSERT_STR(out, "\r\033[1A2\033[K\n\033[J", "after 1 row in a window of 3");
}

static const struct tu_test tests[] = {
	TU_TEST(test_rows_count_wrapped_lines),
	TU_TEST(test_each_frame_over_the_last),
	TU_TEST(test_frame_that_scrolled_is_not_reached_for),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
