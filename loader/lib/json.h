/* SPDX-License-Identifier: GPL-2.0 */
/* A small streaming JSON writer for --json output: it tracks commas and
 * nesting, so callers only say what comes next. A NULL key means an array
 * element.
 *
 * Strings go out as UTF-8: valid UTF-8 passes unchanged; quote, backslash
 * and the controls U+0000-U+001F are escaped, as JSON requires (\b \f \n
 * \r \t where JSON has a short form, \u00XX otherwise), and so are DEL and
 * the C1 controls U+007F-U+009F, so that output shown on a terminal cannot
 * drive it. Bytes that are not UTF-8 (names from the system need not be:
 * overlongs, surrogates, code points past U+10FFFF, truncated sequences,
 * stray continuation bytes) become U+FFFD, one per maximal invalid subpart
 * as Unicode recommends: "\xe2\x82" is one U+FFFD, "\xc0\xaf" two.
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
