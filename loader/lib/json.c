// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = false;
}

static void put_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		/* Names from the system need not be UTF-8: bytes outside
		 * ASCII are written as the code point of the same number.
		 */
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void item(struct json *j, const char *key)
{
	if (j->has_items[j->depth])
		fputc(',', j->out);
	j->has_items[j->depth] = true;
	if (key) {
		put_escaped(j->out, key);
		fputc(':', j->out);
	}
}

static void open_scope(struct json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_scope(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
	if (!j->depth)
		fputc('\n', j->out);
}

void json_object_open(struct json *j, const char *key) { open_scope(j, key, '{'); }
void json_object_close(struct json *j) { close_scope(j, '}'); }
void json_array_open(struct json *j, const char *key) { open_scope(j, key, '['); }
void json_array_close(struct json *j) { close_scope(j, ']'); }

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	item(j, key);
	fprintf(j->out, "%llu", v);
}

void json_int(struct json *j, const char *key, long long v)
{
	item(j, key);
	fprintf(j->out, "%lld", v);
}

/* JSON has no NaN or infinity: a figure that could not be measured is null. */
void json_double(struct json *j, const char *key, double v)
{
	item(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void json_string(struct json *j, const char *key, const char *v)
{
	item(j, key);
	put_escaped(j->out, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->out);
}
