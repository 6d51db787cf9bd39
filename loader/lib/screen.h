/* SPDX-License-Identifier: GPL-2.0 */
/* Text redrawn in place on a terminal, a frame at a time: each frame is
 * drawn over the last one, so that what was on the terminal above the
 * first (the command, the notes before it) stays in view. Callers render
 * a frame into memory first, so that they can measure it against the
 * window before it is shown.
 */
#ifndef CPUSTEER_SCREEN_H
#define CPUSTEER_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct screen_size {
	int rows, cols;
};

/* What the last frame left on the terminal; zeroed before the first. */
struct screen {
	struct screen_size size;	/* the window it was drawn in */
	int rows;			/* the rows it took */
};

/* The window of the terminal on `fd`; false when `fd` is not a terminal
 * or says no size.
 */
bool screen_size(int fd, struct screen_size *s);

/* The rows `text` takes in a window `cols` wide: one a line, more for a
 * line that wraps. The text is ASCII, a column a byte.
 */
int screen_rows(const char *text, size_t len, int cols);

/* Writes `text` (whole lines) as the new frame in a window of size `now`:
 * from the first row of the last frame, each line clearing the rest of
 * the old one, and what is below it cleared. A frame of fewer rows than
 * the window never scrolls the last one out of reach; when it did, or the
 * window was resized since (which may have rewrapped the last frame), the
 * frame is drawn on a cleared window from its top left corner instead.
 */
void screen_draw(struct screen *s, const struct screen_size *now, FILE *out, const char *text,
		 size_t len);

#endif
