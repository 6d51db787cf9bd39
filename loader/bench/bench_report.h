/* SPDX-License-Identifier: GPL-2.0 */
/* What the throughput benchmark reports: a summary table for people, and
 * with --json a JSON file of every figure plus a hand-written SVG bar
 * chart next to it.
 */
#ifndef CPUSTEER_BENCH_REPORT_H
#define CPUSTEER_BENCH_REPORT_H

#include <stdio.h>
#include "bench_cases.h"

void bench_print_summary(const struct bench_result *r, FILE *f);
int bench_write_json(const struct bench_result *r, const char *path);
/* The SVG bar chart of the medians, the ratios and the spread of the
 * runs (bench_chart.c).
 */
int bench_write_svg(const struct bench_result *r, const char *path);
/* PATH gets the JSON; PATH with its ".json" replaced by ".svg" (or with
 * ".svg" appended) gets the chart.
 */
int bench_write_files(const struct bench_result *r, const char *path);

#endif
