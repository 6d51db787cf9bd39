// SPDX-License-Identifier: GPL-2.0
/* The strings of the JSON writer (loader/lib/json.c): valid UTF-8 passes
 * unchanged, what JSON requires is escaped, and bytes that are not UTF-8
 * become U+FFFD, one per maximal invalid subpart. python3's json module
 * then reads every output back, and its UTF-8 decoder, which replaces
 * maximal subparts too, is the oracle for random bytes.
 *
 * Not in kernel runs: pure user space, the same on every kernel
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "test_util.h"

#define FFFD "\xef\xbf\xbd"

struct json_case {
	const char *what;
	const char *in;
	const char *want;	/* the JSON text, quotes included */
};

static const struct json_case cases[] = {
	{ "ASCII", "eth0", "\"eth0\"" },
	{ "quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\"" },
	{ "short forms", "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
	{ "other C0 controls", "\x01\x1b\x1f", "\"\\u0001\\u001b\\u001f\"" },
	{ "DEL", "a\x7f", "\"a\\u007f\"" },
	{ "C1 controls", "\xc2\x80\xc2\x9b\xc2\x9f", "\"\\u0080\\u009b\\u009f\"" },
	{ "two bytes", "ve\xc3\xa9", "\"ve\xc3\xa9\"" },
	{ "no-break space, past C1", "\xc2\xa0", "\"\xc2\xa0\"" },
	{ "three bytes", "\xe2\x82\xac", "\"\xe2\x82\xac\"" },
	{ "last before the surrogates", "\xed\x9f\xbf", "\"\xed\x9f\xbf\"" },
	{ "first after the surrogates", "\xee\x80\x80", "\"\xee\x80\x80\"" },
	{ "U+FFFD itself", FFFD, "\"" FFFD "\"" },
	{ "four bytes", "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
	{ "U+10FFFF", "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"" },
	{ "overlong, two bytes", "\xc0\xaf", "\"" FFFD FFFD "\"" },
	{ "overlong, three bytes", "\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"" },
	{ "overlong, four bytes", "\xf0\x80\x80\xaf", "\"" FFFD FFFD FFFD FFFD "\"" },
	{ "surrogate D800", "\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"" },
	{ "surrogate DFFF", "\xed\xbf\xbf", "\"" FFFD FFFD FFFD "\"" },
	{ "past U+10FFFF", "\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"" },
	{ "lead byte past F4", "\xf5\x80", "\"" FFFD FFFD "\"" },
	{ "FE and FF", "\xfe\xff", "\"" FFFD FFFD "\"" },
	{ "truncated, then ASCII", "\xe2\x82" "A", "\"" FFFD "A\"" },
	{ "truncated at the end, 2 of 3", "x\xe2\x82", "\"x" FFFD "\"" },
	{ "truncated at the end, 3 of 4", "\xf0\x9f\x98", "\"" FFFD "\"" },
	{ "truncated at the end, 1 of 2", "\xc3", "\"" FFFD "\"" },
	{ "stray continuation bytes", "a\x80\xbf" "b", "\"a" FFFD FFFD "b\"" },
	/* Unicode's own example (chapter 3, table 3-8). */
	{ "maximal subparts", "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
	  "\"a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d\"" },
};

/* What the writer makes of one string, in `out` (a NUL-terminated copy). */
static void write_string(const char *in, char *out, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	struct json j;
	FILE *f = open_memstream(&buf, &n);

	if (!f) {
		snprintf(out, len, "(no memstream)");
		return;
	}
	json_init(&j, f);
	json_string(&j, NULL, in);
	fclose(f);
	snprintf(out, len, "%s", buf);
	free(buf);
}

static void put_hex(FILE *f, const char *s)
{
	for (; *s; s++)
		fprintf(f, "%02x", (unsigned char)*s);
}

static void test_table(void)
{
	char got[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		write_string(cases[i].in, got, sizeof(got));
		if (strcmp(got, cases[i].want)) {
			printf("#   %s: expected %s, got %s\n", cases[i].what, cases[i].want, got);
			tu_failures++;
		}
	}
}

/* A line per string, "HEX JSON", for check_with_python(). */
static void add_line(FILE *f, const char *in)
{
	char out[1024];

	write_string(in, out, sizeof(out));
	put_hex(f, in);
	fprintf(f, " %s\n", out);
}

/* Each line's JSON must parse and hold the input as Python decodes UTF-8
 * with errors="replace" (maximal subparts): for valid UTF-8, the input
 * unchanged. The script prints "ok" or what differed, a line each.
 */
static const char checker[] =
	"import json, sys\n"
	"for line in sys.stdin.buffer:\n"
	"    hexed, out = line.rstrip(b'\\n').split(b' ', 1)\n"
	"    raw = bytes.fromhex(hexed.decode())\n"
	"    try:\n"
	"        got = json.loads(out.decode('utf-8'))\n"
	"    except ValueError as e:\n"
	"        print('%s: does not parse: %s' % (hexed.decode(), e)); continue\n"
	"    want = raw.decode('utf-8', 'replace')\n"
	"    print('ok' if got == want else '%s: read back %a, expected %a' % (hexed.decode(), got, want))\n";

static void check_with_python(FILE *lines, int n)
{
	char cmd[1024], got[512];
	int ok = 0, seen = 0;
	FILE *p;

	if (system("python3 -c 'import json' >/dev/null 2>&1"))
		SKIP("no python3");
	fflush(lines);
	snprintf(cmd, sizeof(cmd), "python3 -c \"$CHECKER\" </dev/fd/%d", fileno(lines));
	setenv("CHECKER", checker, 1);
	rewind(lines);
	p = popen(cmd, "r");
	ASSERT_TRUE(p != NULL, "python3 started");
	if (!p)
		return;
	while (fgets(got, sizeof(got), p)) {
		seen++;
		if (!strcmp(got, "ok\n"))
			ok++;
		else
			printf("#   %s", got);
	}
	ASSERT_EQ(pclose(p), 0, "python3's exit status");
	ASSERT_EQ(seen, n, "lines python3 read");
	ASSERT_EQ(ok, n, "lines that parse and read back as expected");
}

static void test_python_reads_the_table(void)
{
	FILE *lines = tmpfile();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		add_line(lines, cases[i].in);
	check_with_python(lines, ARRAY_SIZE(cases));
	fclose(lines);
}

/* Random bytes, biased towards the lead and continuation bytes where
 * UTF-8 goes wrong, and random code points encoded right.
 */
static void test_python_reads_random_bytes(void)
{
	static const unsigned char tricky[] = { 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0,
						0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0,
						0xf4, 0xf5, 0xff, 0x7f, 0x01, '"', '\\' };
	FILE *lines = tmpfile();
	char in[24];
	int n, i, len;

	srand(25);
	for (n = 0; n < 2000; n++) {
		len = rand() % 16;
		for (i = 0; i < len; i++)
			in[i] = rand() % 2 ? tricky[rand() % sizeof(tricky)] : 1 + rand() % 255;
		in[len] = '\0';
		add_line(lines, in);
	}
	check_with_python(lines, n);
	fclose(lines);
}

/* Keys go through the same writer, in a document python3 reads whole. */
static void test_keys_and_documents(void)
{
	char *buf = NULL;
	size_t n = 0;
	struct json j;
	FILE *f = open_memstream(&buf, &n);

	json_init(&j, f);
	json_object_open(&j, NULL);
	json_string(&j, "caf\xc3\xa9", "ve\xc3\xa9\x01");
	json_array_open(&j, "t\xe2\x82\xac");
	json_string(&j, NULL, "\xff");
	json_array_close(&j);
	json_object_close(&j);
	fclose(f);
	if (strcmp(buf, "{\"caf\xc3\xa9\":\"ve\xc3\xa9\\u0001\",\"t\xe2\x82\xac\":[\"" FFFD "\"]}\n")) {
		printf("#   expected the keys and strings as they were, got %s", buf);
		tu_failures++;
	}
	free(buf);
}

static const struct tu_test tests[] = {
	TU_TEST(test_table),
	TU_TEST(test_python_reads_the_table),
	TU_TEST(test_python_reads_random_bytes),
	TU_TEST(test_keys_and_documents),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}
