/* SPDX-License-Identifier: GPL-2.0 */
/* A small streaming JSON writer for --json output: it tracks commas and
 * nesting, so callers only say what comes next. A NULL key means an array
 * element.
 */
#ifndef CPUSTEER_JSON_H
#define CPUSTEER_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	bool has_items[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *out);
void json_object_open(struct json *j, const char *key);
void json_object_close(struct json *j);
void json_array_open(struct json *j, const char *key);
void json_array_close(struct json *j);
void json_uint(struct json *j, const char *key, unsigned long long v);
void json_int(struct json *j, const char *key, long long v);
void json_double(struct json *j, const char *key, double v);
void json_string(struct json *j, const char *key, const char *v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

#endif
