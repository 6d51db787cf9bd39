// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stddef.h>
#include "json.h"
#include "utf8.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = false;
}

static const char *short_form(unsigned int cp)
{
	switch (cp) {
	case '"':  return "\\\"";
	case '\\': return "\\\\";
	case '\b': return "\\b";
	case '\f': return "\\f";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	}
	return NULL;
}

/* Escapes what JSON requires (RFC 8259: quote, backslash, U+0000-U+001F),
 * plus DEL and the C1 controls (U+007F-U+009F), which JSON allows raw but
 * a terminal showing the output would act on; the rest goes out as is.
 */
static void put_code_point(FILE *f, const unsigned char *s, int len)
{
	unsigned int cp = len == 1 ? s[0] : len == 2 ? (s[0] & 0x1f) << 6 | (s[1] & 0x3f) : 0x800;
	const char *sf = short_form(cp);

	if (sf)
		fputs(sf, f);
	else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		fprintf(f, "\\u%04x", cp);
	else
		fwrite(s, 1, len, f);
}

static void put_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int len;

	fputc('"', f);
	while (*s) {
		len = utf8_sequence(s);
		if (len > 0) {
			put_code_point(f, s, len);
			s += len;
		} else {
			/* Names from the system need not be UTF-8: each
			 * maximal invalid subpart becomes one U+FFFD, as
			 * Unicode recommends (chapter 3, "U+FFFD Substitution
			 * of Maximal Subparts").
			 */
			fputs("\xef\xbf\xbd", f);
			s += -len;
		}
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
