// SPDX-License-Identifier: GPL-2.0
/* The bench's SVG bar chart: a group of bars per scenario, each with its
 * own scale (Mpps and Gbit/s share no axis), a bar per case at the median
 * of its runs, a whisker from the lowest run to the highest, the ratio to
 * the baseline inside the bar, at its foot. Written by hand: no font metrics here, so
 * every text's width is estimated from its length, generously, and the
 * canvas, each group and each label are made wide enough for it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench_report.h"
#include "log.h"

#define BAR_W 112
#define BAR_GAP 12
#define GROUP_GAP 48
#define MARGIN 40
#define PLOT_H 240
#define PLOT_TOP 84		/* below the title and two legend lines */
#define FONT 12
#define TITLE_FONT 15
#define LINE_H 15
#define LABEL_LINES 3		/* a case name of 31 characters wraps into 3 */
#define WHISKER_CAP 8

static const char *const legend[] = {
	"grey: baseline; blue: compared case; xR: the median of the run-by-run ratios to the baseline",
	"whiskers: the lowest and the highest run; each group has its own scale",
};

/* Sans-serif glyphs average a little over half an em; 0.62 em a
 * character (more for bold) errs on the wide side for digits, lower case
 * and the punctuation of these labels.
 */
static int text_width(const char *s, int size, bool bold)
{
	return (int)(strlen(s) * size * (bold ? 0.68 : 0.62) + 0.999);
}

/* A case name's characters on one line under its bar. */
#define LABEL_CHARS ((int)(BAR_W / (FONT * 0.62)))

static void svg_text(FILE *f, const char *s, size_t n)
{
	for (; n && *s; s++, n--) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* The length of the next line of a case name that starts at `s`: up to
 * LABEL_CHARS, broken after the last '-' that fits when the rest does
 * not.
 */
static size_t label_line(const char *s)
{
	size_t n = strlen(s), cut;

	if (n <= LABEL_CHARS)
		return n;
	for (cut = LABEL_CHARS; cut > 1 && s[cut - 1] != '-'; cut--)
		;
	return cut > 1 ? cut : LABEL_CHARS;
}

static bool in_group(const struct bench_result *r, int i, int sc)
{
	return r->cases[i].scenario == (enum bench_scenario)sc && r->cases[i].nruns;
}

/* The lowest and highest headline of a case's runs; NAN when none is a
 * number.
 */
static void run_range(const struct bench_case *c, double *lo, double *hi)
{
	unsigned int j;
	double v;

	*lo = *hi = NAN;
	for (j = 0; j < c->nruns; j++) {
		v = bench_headline(c, &c->runs[j]);
		if (!isfinite(v))
			continue;
		if (!(v >= *lo))
			*lo = v;
		if (!(v <= *hi))
			*hi = v;
	}
}

struct group {
	int ncases;
	double top;		/* the highest median or run: the scale's 87% */
	bool tcp;
	char label[64];		/* scenario (unit) */
	int bars_w, w;		/* the bars' width; the group's, label included */
};

static void group_measure(const struct bench_result *r, int sc, struct group *g)
{
	double v, lo, hi;
	int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < r->ncases; i++) {
		if (!in_group(r, i, sc))
			continue;
		g->ncases++;
		g->tcp = r->cases[i].tcp;
		v = bench_headline(&r->cases[i], &r->cases[i].med);
		run_range(&r->cases[i], &lo, &hi);
		if (isfinite(v) && v > g->top)
			g->top = v;
		if (isfinite(hi) && hi > g->top)
			g->top = hi;
	}
	snprintf(g->label, sizeof(g->label), "%s (%s)", bench_scenario_name(sc),
		 g->tcp ? "Gbit/s" : "Mpps");
	g->bars_w = g->ncases * BAR_W + (g->ncases - 1) * BAR_GAP;
	g->w = g->bars_w;
	if (text_width(g->label, FONT, true) > g->w)
		g->w = text_width(g->label, FONT, true);
}

static int y_of(double v, double scale)
{
	return PLOT_TOP + PLOT_H - (isfinite(v) && scale > 0 ? (int)(v / scale * PLOT_H) : 0);
}

/* From the lowest run (y_lo) to the highest (y_hi), with a cap at each end. */
static void draw_whisker(FILE *f, int mid, int y_lo, int y_hi)
{
	fprintf(f, "<g class=\"whisker\" stroke=\"#212121\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		   "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>\n",
		mid, y_hi, mid, y_lo, mid - WHISKER_CAP, y_hi, mid + WHISKER_CAP, y_hi,
		mid - WHISKER_CAP, y_lo, mid + WHISKER_CAP, y_lo);
}

static void draw_label(FILE *f, const char *name, int mid)
{
	int line, y = PLOT_TOP + PLOT_H + LINE_H + 1;
	size_t n;

	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", mid, y);
	for (line = 0; *name && line < LABEL_LINES; line++, name += n) {
		n = label_line(name);
		fprintf(f, "<tspan x=\"%d\" dy=\"%d\">", mid, line ? LINE_H : 0);
		svg_text(f, name, n);
		fputs("</tspan>", f);
	}
	fputs("</text>\n", f);
}

/* One bar: the median's height, its value above the bar or the whisker,
 * the ratio (or "baseline") inside, the case name below.
 */
static void draw_bar(FILE *f, const struct bench_result *r, int i, int x, double scale)
{
	const struct bench_case *c = &r->cases[i];
	double v = bench_headline(c, &c->med), ratio = bench_headline(c, &c->ratio), lo, hi;
	int base = PLOT_TOP + PLOT_H, y = y_of(v, scale), h = base - y, mid = x + BAR_W / 2;
	int above = y;
	bool spread;

	run_range(c, &lo, &hi);
	spread = c->nruns > 1 && isfinite(lo);	/* lo and hi are numbers together */
	if (spread && y_of(hi, scale) < above)
		above = y_of(hi, scale);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", x, y,
		BAR_W, h, c->baseline == i ? "#9e9e9e" : "#3b7dd8");
	if (spread)
		draw_whisker(f, mid, y_of(lo, scale), y_of(hi, scale));
	if (isfinite(v))
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.*f</text>\n", mid,
			above - 6, c->tcp ? 2 : 3, v);
	else
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">n/a</text>\n", mid,
			base - 6);
	/* At the bar's foot, clear of the whisker around its top. */
	if (c->baseline != i && isfinite(ratio) && h > 20)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"white\">x%.2f</text>\n",
			mid, base - 8, ratio);
	else if (c->baseline == i && h > 20)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"white\">baseline</text>\n",
			mid, base - 8);
	draw_label(f, c->name, mid);
}

/* The bars centred in the group's width, its label under them. */
static void draw_group(FILE *f, const struct bench_result *r, int sc, const struct group *g, int x)
{
	double scale = g->top * 1.15;
	int i, bx = x + (g->w - g->bars_w) / 2;

	for (i = 0; i < r->ncases; i++) {
		if (!in_group(r, i, sc))
			continue;
		draw_bar(f, r, i, bx, scale);
		bx += BAR_W + BAR_GAP;
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">",
		x + g->w / 2, PLOT_TOP + PLOT_H + (LABEL_LINES + 1) * LINE_H + 8);
	svg_text(f, g->label, sizeof(g->label));
	fputs("</text>\n", f);
}

int bench_write_svg(const struct bench_result *r, const char *path)
{
	struct group groups[SC_COUNT];
	int sc, x, width = 2 * MARGIN, height, min_w;
	char title[128];
	size_t l;
	FILE *f;

	snprintf(title, sizeof(title), "cpusteer bench: median of %u run%s, %d CPUs, %u flows",
		 r->runs, r->runs == 1 ? "" : "s", r->ncpus, r->flows);
	for (sc = 0; sc < SC_COUNT; sc++) {
		group_measure(r, sc, &groups[sc]);
		if (groups[sc].ncases)
			width += groups[sc].w + GROUP_GAP;
	}
	width -= GROUP_GAP;
	min_w = 2 * MARGIN + text_width(title, TITLE_FONT, true);
	for (l = 0; l < sizeof(legend) / sizeof(legend[0]); l++)
		if (2 * MARGIN + text_width(legend[l], FONT, false) > min_w)
			min_w = 2 * MARGIN + text_width(legend[l], FONT, false);
	if (width < min_w)
		width = min_w;
	height = PLOT_TOP + PLOT_H + (LABEL_LINES + 1) * LINE_H + 8 + MARGIN / 2;
	f = fopen(path, "w");
	if (!f) {
		log_err("cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"%d\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height, FONT);
	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"%d\" font-weight=\"bold\">%s</text>\n",
		MARGIN, TITLE_FONT, title);
	for (l = 0; l < sizeof(legend) / sizeof(legend[0]); l++)
		fprintf(f, "<text x=\"%d\" y=\"%zu\">%s</text>\n", MARGIN, 46 + l * LINE_H, legend[l]);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", MARGIN / 2,
		PLOT_TOP + PLOT_H, width - MARGIN / 2, PLOT_TOP + PLOT_H);
	for (sc = 0, x = MARGIN; sc < SC_COUNT; sc++) {
		if (!groups[sc].ncases)
			continue;
		draw_group(f, r, sc, &groups[sc], x);
		x += groups[sc].w + GROUP_GAP;
	}
	fputs("</svg>\n", f);
	if (fclose(f)) {
		log_err("cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
