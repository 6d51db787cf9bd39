// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "screen.h"

#define CURSOR_HOME "\033[H"
#define CURSOR_UP "\033[%dA"
#define CLEAR_TO_LINE_END "\033[K"
#define CLEAR_TO_SCREEN_END "\033[J"

bool screen_size(int fd, struct screen_size *s)
{
	struct winsize ws;

	if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col)
		return false;
	s->rows = ws.ws_row;
	s->cols = ws.ws_col;
	return true;
}

int screen_rows(const char *text, size_t len, int cols)
{
	const char *end = text + len, *nl;
	size_t width;
	int rows = 0;

	while (text < end) {
		nl = memchr(text, '\n', end - text);
		width = (nl ? nl : end) - text;
		rows += width ? (width + cols - 1) / cols : 1;
		text = nl ? nl + 1 : end;
	}
	return rows;
}

void screen_draw(struct screen *s, const struct screen_size *now, FILE *out, const char *text,
		 size_t len)
{
	const char *end = text + len, *nl;

	if (s->rows && (s->rows >= s->size.rows || s->size.rows != now->rows ||
			s->size.cols != now->cols))
		fputs(CURSOR_HOME CLEAR_TO_SCREEN_END, out);
	else if (s->rows)
		fprintf(out, "\r" CURSOR_UP, s->rows);
	s->size = *now;
	s->rows = screen_rows(text, len, now->cols);
	while (text < end) {
		nl = memchr(text, '\n', end - text);
		if (!nl)
			nl = end;
		fwrite(text, 1, nl - text, out);
		fputs(CLEAR_TO_LINE_END "\n", out);
		text = nl + 1;
	}
	fputs(CLEAR_TO_SCREEN_END, out);
}
