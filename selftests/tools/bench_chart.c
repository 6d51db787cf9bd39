// SPDX-License-Identifier: GPL-2.0
/* Draws the bench's chart from figures given on the command line, so
 * that selftests/test_bench_chart.sh can hold its layout to any set of
 * scenarios and runs without running a bench.
 *
 *   bench_chart OUT.svg SCENARIO CASE MPPS[,MPPS...] [SCENARIO CASE MPPS...]...
 *
 * The first case of each scenario is its baseline; a case's median and
 * ratio are computed from its runs as the bench computes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_report.h"
#include "name_table.h"
#include "stats_math.h"

#define MAX_CASES 16
#define MAX_RUNS 16

static struct bench_case cases[MAX_CASES];
static struct bench_figures runs[MAX_CASES][MAX_RUNS];

static int add(struct bench_result *r, const char *scenario, const char *name, char *values)
{
	struct bench_case *c = &cases[r->ncases];
	double v[MAX_RUNS];
	char *tok;
	int sc, i;

	if (r->ncases == MAX_CASES || name_parse("scenario", bench_scenario_names, scenario, &sc))
		return -1;
	c->scenario = sc;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->baseline = r->ncases;
	for (i = 0; i < r->ncases; i++)
		if (cases[i].scenario == c->scenario) {
			c->baseline = i;
			break;
		}
	c->runs = runs[r->ncases];
	for (tok = strtok(values, ","); tok && c->nruns < MAX_RUNS; tok = strtok(NULL, ",")) {
		v[c->nruns] = strtod(tok, NULL);
		c->runs[c->nruns].mpps = v[c->nruns];
		c->nruns++;
	}
	c->med.mpps = median(v, c->nruns);
	c->ratio.mpps = c->med.mpps / cases[c->baseline].med.mpps;
	if (c->nruns > r->runs)
		r->runs = c->nruns;
	r->ncases++;
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_result r = { .ncpus = 2, .flows = 1000, .cases = cases };
	int i;

	if (argc < 5 || (argc - 2) % 3) {
		fprintf(stderr, "usage: bench_chart OUT.svg SCENARIO CASE MPPS[,MPPS...]...\n");
		return 2;
	}
	for (i = 2; i < argc; i += 3)
		if (add(&r, argv[i], argv[i + 1], argv[i + 2]))
			return 2;
	return bench_write_svg(&r, argv[1]) ? 1 : 0;
}
